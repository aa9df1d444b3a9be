import 'reflect-metadata';
import { AppConfig, InvalidEnvironmentError, validateEnvironment } from '@app/platform';
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
  const firstRun = await ensureBootstrapAdmin(app);
  const shownHost = env.HOST === '0.0.0.0' || env.HOST === '::' ? 'localhost' : env.HOST;
  const url = `http://${shownHost}:${env.PORT}`;
  const lines = [
    '',
    `  OPS API listening on ${url}`,
    `  API docs:  ${url}/docs`,
    `  Database:  ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    `  Cache:     ${config.redisUrl ? 'Redis (REDIS_URL)' : 'in-process'}`,
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
