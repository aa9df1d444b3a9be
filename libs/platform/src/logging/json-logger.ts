import { LoggerService, LogLevel } from '@nestjs/common';
import { RequestContext } from '../context/request-context';
import type { LogLevelName } from '../platform.config';

const SEVERITY: Record<LogLevelName, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const NEST_LEVEL: Record<LogLevel, LogLevelName> = {
  verbose: 'debug',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'error',
};

export interface JsonLoggerOptions {
  level: LogLevelName;
  format: 'json' | 'pretty';
  stream?: NodeJS.WritableStream;
}

/**
 * Structured logger: one JSON object per line with the request and trace ids of the current request.
 * Used as Nest's application logger, so framework and library logs share the format.
 */
export class JsonLogger implements LoggerService {
  private readonly threshold: number;
  private readonly stream: NodeJS.WritableStream;

  constructor(private readonly options: JsonLoggerOptions) {
    this.threshold = SEVERITY[options.level];
    this.stream = options.stream ?? process.stdout;
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(nestLevel: LogLevel, message: unknown, rest: unknown[]): void {
    const level = NEST_LEVEL[nestLevel];
    if (SEVERITY[level] < this.threshold) return;
    const args = [...rest];
    const context = typeof args[args.length - 1] === 'string' ? (args.pop() as string) : undefined;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, context };
    const ctx = RequestContext.current();
    if (ctx) {
      entry.requestId = ctx.requestId;
      entry.traceId = ctx.traceId;
      if (ctx.principal) entry.tenantId = ctx.principal.tenantId;
      if (ctx.runId) entry.run_id = ctx.runId;
    }
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.err = { name: message.name, stack: message.stack };
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(entry, message);
    } else {
      entry.msg = String(message);
    }
    for (const extra of args) {
      if (typeof extra === 'string' && nestLevel === 'error') entry.stack = extra;
      else if (extra instanceof Error)
        entry.err = { name: extra.name, message: extra.message, stack: extra.stack };
      else if (typeof extra === 'object' && extra !== null) Object.assign(entry, extra);
    }
    this.stream.write(this.options.format === 'json' ? `${safeStringify(entry)}\n` : pretty(entry));
  }
}

function safeStringify(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return JSON.stringify({ time: entry.time, level: entry.level, msg: String(entry.msg) });
  }
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : safeStringify({ value });

function pretty(entry: Record<string, unknown>): string {
  const { time, level, context, msg, requestId, traceId: _traceId, ...rest } = entry;
  const extras = Object.keys(rest).length > 0 ? ` ${safeStringify(rest)}` : '';
  const req = requestId ? ` [${text(requestId)}]` : '';
  const ctx = context ? `[${text(context)}] ` : '';
  return `${text(time)} ${text(level).toUpperCase().padEnd(5)} ${ctx}${text(msg)}${req}${extras}\n`;
}
