import { CodeCache } from './code-cache';

// First, so that every module below is loaded with the bytecode an earlier start left (see CodeCache).
const codeCache = CodeCache.enable('server');
/** After the start-up's own work (the first requests, the demo load's start) has had the CPU. */
const CODE_CACHE_SAVE_DELAY_MS = 5_000;
/** Modules left out of the start (the MCP SDK) load this long after ready, before the code cache is written. */
const PRELOAD_DELAY_MS = 1_000;

async function main(): Promise<void> {
  await import('reflect-metadata');
  const [
    { Logger },
    { JsonLogger, startDatabaseEarly },
    { InvalidEnvironmentError },
    { validateEnvironment },
  ] = await Promise.all([
    import('@nestjs/common'),
    import('@app/platform/boot'),
    import('@app/platform/config'),
    import('./config-schemas'),
  ]);
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
  const [{ createApp, ensureBootstrapAdmin }, { PlatformConfig }, { demoBannerLines }] = await Promise.all([
    import('./bootstrap'),
    import('@app/platform'),
    import('./startup-banner'),
  ]);
  const app = await createApp({ env });
  await app.listen(env.PORT, env.HOST);
  // Not needed for readiness, but loaded soon after it rather than by the first MCP session (a load blocks
  // the event loop); a worker serves no MCP.
  if (env.APP_ROLE !== 'worker')
    setTimeout(() => {
      import('@app/tools')
        .then(({ preloadMcpServerSdk }) => preloadMcpServerSdk())
        .catch((error: Error) => new Logger('Startup').warn({ msg: 'preload failed', error: error.message }));
    }, PRELOAD_DELAY_MS).unref();
  // Once ready, and only when this start compiled modules the cache did not hold (a first start, a new
  // build): the next start skips compiling them.
  setTimeout(() => {
    const started = performance.now();
    if (codeCache?.save())
      new Logger('CodeCache').debug({
        msg: 'code cache written',
        ...codeCache.stats,
        ms: Math.round(performance.now() - started),
      });
  }, CODE_CACHE_SAVE_DELAY_MS).unref();
  const config = app.get(PlatformConfig);
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
    `  Database:  ${config.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    `  Cache:     ${config.REDIS_URL ? 'Redis (REDIS_URL)' : 'in-process'}`,
    ...(await demoBannerLines(app, url)),
  ];
  if (firstRun.keyFile) {
    lines.push(
      '',
      `  First start: created the admin key ${firstRun.maskedKey} for tenant "default".`,
      `  The key is in ${firstRun.keyFile} (mode 0600, readable only by this user); it is never printed.`,
      `  Try: export OPS_URL=${url} OPS_KEY=$(cat ${firstRun.keyFile})`,
      `       curl -H "Authorization: Bearer $OPS_KEY" $OPS_URL/api/keys`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});
