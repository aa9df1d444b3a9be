import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JsonLogger } from '@app/platform';
import { ParsedArgs, stringFlag } from './cli-args';

/**
 * Boots the application without HTTP or schedulers for a command that opens the database
 * (`--data-dir DIR`, else DATA_DIR or DATABASE_URL). The module graph is loaded here, not at start,
 * so `--help` and HTTP-only commands answer at once. Nest's own error lines (with stacks) are shown
 * only with `--verbose`; the command prints the error once.
 */
export async function openCliApp(args: ParsedArgs): Promise<INestApplicationContext> {
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const { AppModule } = await import('../app.module');
  return NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
    logger: args.flags.verbose
      ? new JsonLogger({ level: 'warn', format: 'pretty', stream: process.stderr })
      : false,
    abortOnError: false,
  });
}
