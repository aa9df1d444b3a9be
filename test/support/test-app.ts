import type { NestExpressApplication } from '@nestjs/platform-express';
import { PassThrough } from 'node:stream';
import { generateTestApiKey } from './test-keys';
import { createApp, ensureBootstrapAdmin } from '../../apps/api/src/bootstrap';
import { validateEnvironment } from '../../apps/api/src/config-schemas';
import { createTestDatabase, TestDatabase } from './test-database';
import { applyEnv, QUIET_TEST_ENV } from './test-env';
import { scopedForTests } from './test-scope';
import { ResponseValidator } from './response-validation';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  rawBody?: string;
  /** Do not check the response against the OpenAPI document (only for deliberately undocumented calls). */
  skipContractCheck?: boolean;
}

export interface TestApp {
  app: NestExpressApplication;
  url: string;
  database: TestDatabase;
  /** The system admin key of the default tenant. */
  adminKey: string;
  request<T = any>(method: string, route: string, options?: RequestOptions): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

/**
 * The app, whose `get()` hands out services scoped like TestContext's (see scopedForTests): tests
 * calling services directly stand in for the request layer that sets the database scope.
 */
function scopedApp(app: NestExpressApplication): NestExpressApplication {
  return new Proxy(app, {
    get(target, property) {
      if (property === 'get')
        return (token: Parameters<NestExpressApplication['get']>[0]) => scopedForTests(target.get(token));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Boots the real application on a fresh test database and serves it on a random local port. */
export async function startTestApp(extraEnv: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const adminKey = generateTestApiKey();
  const restoreEnv = applyEnv({
    ...QUIET_TEST_ENV,
    ...database.env,
    ADMIN_API_KEY: adminKey,
    PORT: '0',
    ...extraEnv,
  });
  const logStream = new PassThrough();
  if (process.env.TEST_LOGS === '1') logStream.pipe(process.stderr);
  else logStream.resume();
  let app: NestExpressApplication | undefined;
  try {
    app = await createApp({ env: validateEnvironment(process.env), logStream });
    await app.listen(0, '127.0.0.1');
    await ensureBootstrapAdmin(app);
  } catch (error) {
    await app?.close();
    restoreEnv();
    await database.drop();
    throw error;
  }
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const started = app;
  const request = requester(url, adminKey);

  return {
    app: scopedApp(started),
    url,
    database,
    adminKey,
    request,
    close: async () => {
      await started.close();
      restoreEnv();
      await database.drop();
    },
  };
}

/** The HTTP helper of a served app: sends with the admin key by default, checks responses against its OpenAPI. */
function requester(url: string, adminKey: string): TestApp['request'] {
  let validator: ResponseValidator | undefined;
  return async <T>(method: string, route: string, options: RequestOptions = {}): Promise<HttpResult<T>> => {
    const key = options.key === undefined ? adminKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${route}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    if (options.skipContractCheck !== true) {
      validator ??= new ResponseValidator(
        (await (await fetch(`${url}/docs-json`)).json()) as Record<string, unknown>,
      );
      const problems = validator.check(
        method,
        route,
        response.status,
        response.headers.get('content-type'),
        parsed,
      );
      if (problems.length)
        throw new Error(
          `Response differs from the OpenAPI document:\n${problems.join('\n')}\nbody: ${text.slice(0, 500)}`,
        );
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

/**
 * A second replica of a running test app: another application instance on the same database (native
 * backend only: PGlite serves one process). Closing it leaves the database to the primary.
 */
export async function startTestReplica(
  primary: TestApp,
): Promise<Pick<TestApp, 'app' | 'url' | 'request' | 'close'>> {
  if (process.env.TEST_DB_BACKEND === 'embedded')
    throw new Error('a second replica needs the native backend (PGlite serves one process)');
  const logStream = new PassThrough();
  if (process.env.TEST_LOGS === '1') logStream.pipe(process.stderr);
  else logStream.resume();
  // The primary's environment (database, keys) is still applied to process.env.
  const app = await createApp({ env: validateEnvironment(process.env), logStream });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app: scopedApp(app), url, request: requester(url, primary.adminKey), close: () => app.close() };
}
