import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthService, DEFAULT_TENANT_SLUG, JsonLogger } from '@app/platform';
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

/**
 * The tenant a command acts on (`--tenant`, default: default). On a fresh data directory the default tenant and
 * its bootstrap admin key are created as the server would; the key goes to DATA_DIR/admin-key, never to stdout.
 */
export async function cliTenant(
  app: INestApplicationContext,
  args: ParsedArgs,
): Promise<{ id: string; slug: string }> {
  const slug = stringFlag(args, 'tenant') ?? DEFAULT_TENANT_SLUG;
  if (slug === DEFAULT_TENANT_SLUG) {
    const { ensureBootstrapAdmin } = await import('../bootstrap');
    const firstRun = await ensureBootstrapAdmin(app);
    if (firstRun.keyFile) {
      process.stdout.write(
        `created the default tenant and its bootstrap admin key ${firstRun.maskedKey}, saved in ${firstRun.keyFile}\n`,
      );
    }
  }
  return app.get(AuthService).getTenant(slug);
}
