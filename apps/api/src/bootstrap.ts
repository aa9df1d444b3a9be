import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppConfig, AuthService, EnvironmentVariables, JsonLogger, verifyJsonDepth } from '@app/platform';
import { AppModule } from './app.module';
import { setupOpenApi } from './docs/openapi';
import { requestContextMiddleware } from './http/request-context.middleware';

export interface CreateAppOptions {
  env: EnvironmentVariables;
  logStream?: NodeJS.WritableStream;
}

/** Builds the HTTP application exactly as production runs it (used by main and by e2e tests). */
export async function createApp({ env, logStream }: CreateAppOptions): Promise<NestExpressApplication> {
  const logger = new JsonLogger({ level: env.LOG_LEVEL, format: env.LOG_FORMAT, stream: logStream });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    logger,
    bodyParser: false,
    abortOnError: false,
  });
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
  setupOpenApi(app);
  return app;
}

export interface FirstRunResult {
  secret?: string;
  keyFile?: string;
}

/** On first start, creates the bootstrap admin key and writes it to DATA_DIR/admin-key (0600). */
export async function ensureBootstrapAdmin(app: INestApplicationContext): Promise<FirstRunResult> {
  const config = app.get(AppConfig);
  const { secret } = await app.get(AuthService).bootstrapFirstAdmin();
  if (!secret) return {};
  if (!config.get('WRITE_ADMIN_KEY_FILE')) return { secret };
  mkdirSync(config.dataDir, { recursive: true });
  const keyFile = path.join(config.dataDir, 'admin-key');
  writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  new Logger('Bootstrap').log({ msg: 'bootstrap admin key written', file: keyFile });
  return { secret, keyFile };
}
