import { Logger, LoggerService } from '@nestjs/common';
import { inspect } from 'node:util';

declare const __heldLogs: string[] | undefined;

/** Nest logger lines go to the quiet environment's buffer (printed if the test fails). */
function hold(level: string) {
  return (message: unknown, ...rest: unknown[]) => {
    const line = [message, ...rest]
      .map((part) => (typeof part === 'string' ? part : inspect(part)))
      .join(' ');
    if (typeof __heldLogs !== 'undefined') __heldLogs.push(`${level}: ${line}`);
  };
}

if (process.env.TEST_LOGS !== '1') {
  const held: LoggerService = {
    log: hold('LOG'),
    error: hold('ERROR'),
    warn: hold('WARN'),
    debug: hold('DEBUG'),
    verbose: hold('VERBOSE'),
    fatal: hold('FATAL'),
  };
  Logger.overrideLogger(held);
}
