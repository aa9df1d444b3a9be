import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AuthService, JsonLogger, maskedKey, PlatformConfig, verifyJsonDepth } from '@app/platform';
import { AppModule } from './app.module';
import { serveConsole } from './console/console-static';
import { setupOpenApi } from './docs/openapi';
import { healthOnlyMiddleware } from './http/health-only.middleware';
import { requestContextMiddleware } from './http/request-context.middleware';

export interface CreateAppOptions {
  env: PlatformConfig;
  logStream?: NodeJS.WritableStream;
}

/**
 * Builds the HTTP application exactly as production runs it (used by main and by e2e tests). A worker
 * (APP_ROLE=worker) answers /health/* only, for its orchestrator's probes.
 */
export async function createApp({ env, logStream }: CreateAppOptions): Promise<NestExpressApplication> {
  const logger = new JsonLogger({ level: env.LOG_LEVEL, format: env.LOG_FORMAT, stream: logStream });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    logger,
    bodyParser: false,
    abortOnError: false,
  });
  if (env.APP_ROLE === 'worker') app.use(healthOnlyMiddleware);
  app.use(requestContextMiddleware);
  app.useBodyParser('json', { limit: env.BODY_LIMIT, verify: verifyJsonDepth() });
  app.useBodyParser('urlencoded', { limit: env.BODY_LIMIT, extended: true });
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  if (env.CORS_ORIGINS) {
    const origins = env.CORS_ORIGINS.split(',').map((o) => o.trim());
    app.enableCors({
      origin: origins.includes('*') ? true : origins,
      allowedHeaders: ['Authorization', 'X-Api-Key', 'Content-Type', 'X-Request-Id', 'traceparent'],
      exposedHeaders: ['X-Request-Id'],
      maxAge: 600,
    });
  }
  app.enableShutdownHooks();
  if (env.APP_ROLE !== 'worker') {
    serveConsole(app);
    await setupOpenApi(app);
  }
  return app;
}

export interface FirstRunResult {
  /** The generated key's display prefix (`ops_ab12cd34…`); the whole key is only in `keyFile`. */
  maskedKey?: string;
  keyFile?: string;
}

/**
 * On first start, creates the bootstrap admin key and writes it to DATA_DIR/admin-key (0600), the
 * only place the whole key ever appears; output and logs show its prefix and the file's path.
 * Refuses (and creates nothing) when the key could reach no one: no ADMIN_API_KEY and no key file.
 */
export async function ensureBootstrapAdmin(app: INestApplicationContext): Promise<FirstRunResult> {
  const config = app.get(PlatformConfig);
  const writeFile = config.WRITE_ADMIN_KEY_FILE;
  const keyFile = path.join(config.dataDir, 'admin-key');
  if (writeFile) mkdirSync(config.dataDir, { recursive: true });
  const { secret } = await app.get(AuthService).bootstrapFirstAdmin({ canHandOver: writeFile });
  if (!secret) return {};
  writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  new Logger('Bootstrap').log({
    msg: 'bootstrap admin key written',
    file: keyFile,
    prefix: maskedKey(secret),
  });
  return { maskedKey: maskedKey(secret), keyFile };
}
