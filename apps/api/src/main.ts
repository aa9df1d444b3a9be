import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import {
  InvalidEnvironmentError,
  JsonLogger,
  startDatabaseEarly,
  validateEnvironment,
} from '@app/platform/boot';

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
  // The embedded database opens on its own thread while the application's modules load (below): the
  // two took seconds each, one after the other. Its log lines use the application's format already.
  Logger.overrideLogger(new JsonLogger({ level: env.LOG_LEVEL, format: env.LOG_FORMAT }));
  startDatabaseEarly(env);
  const [{ createApp, ensureBootstrapAdmin }, { AppConfig }, { demoBannerLines }] = await Promise.all([
    import('./bootstrap'),
    import('@app/platform'),
    import('./startup-banner'),
  ]);
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
    ...(await demoBannerLines(app, url)),
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

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});
