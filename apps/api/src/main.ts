import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import {
  AppConfig,
  AuthService,
  DEFAULT_TENANT_SLUG,
  InvalidEnvironmentError,
  validateEnvironment,
} from '@app/platform';
import { DemoDataService } from '@app/ops';
import { createApp, ensureBootstrapAdmin } from './bootstrap';

async function main(): Promise<void> {
  let env;
  try {
    env = validateEnvironment(process.env);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp({ env });
  await app.listen(env.PORT, env.HOST);
  const config = app.get(AppConfig);
  const shownHost = env.HOST === '0.0.0.0' || env.HOST === '::' ? 'localhost' : env.HOST;
  // The port actually bound: PORT=0 lets the system pick a free one.
  const address = app.getHttpServer().address() as { port?: number } | string | null;
  const port = typeof address === 'object' && address?.port ? address.port : env.PORT;
  const url = `http://${shownHost}:${port}`;
  if (env.APP_ROLE === 'worker') {
    process.stdout.write(
      `\n  OPS worker running (document jobs, schedulers); health on ${url}/health/ready\n\n`,
    );
    return;
  }
  const firstRun = await ensureBootstrapAdmin(app);
  const lines = [
    '',
    `  OPS API listening on ${url}${env.APP_ROLE === 'api' ? ' (APP_ROLE=api: no jobs, no schedulers)' : ''}`,
    `  Console:   ${url}/ (sign in with an API key)`,
    `  API docs:  ${url}/docs`,
    `  Database:  ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    `  Cache:     ${config.redisUrl ? 'Redis (REDIS_URL)' : 'in-process'}`,
    ...(await demoLines(app, url)),
  ];
  if (firstRun.keyFile) {
    lines.push(
      '',
      `  First start: created the admin key ${firstRun.maskedKey} for tenant "default".`,
      `  The key is in ${firstRun.keyFile} (mode 0600, readable only by this user); it is never printed.`,
      `  Try: curl -H "Authorization: Bearer $(cat ${firstRun.keyFile})" ${url}/api/keys`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/** Says whether the demo dataset is loading in the background and how to follow it. */
async function demoLines(app: INestApplication, url: string): Promise<string[]> {
  const demo = app.get(DemoDataService);
  if (!demo.autoLoadWanted()) return [];
  const tenant = await app
    .get(AuthService)
    .getTenant(DEFAULT_TENANT_SLUG)
    .catch(() => null);
  const status = tenant ? await demo.status(tenant.id) : null;
  if (status?.state === 'ready') return [`  Demo data: loaded in tenant "default"`];
  return [
    `  Demo data: loading into tenant "default" in the background (a few minutes; the API answers meanwhile).`,
    `             Follow it: curl -s ${url}/health/ready   (checks.demo_data: phase, progress_percent, counts)`,
  ];
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});
