import { DynamicModule, ForwardReference, INestApplicationContext, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { JsonLogger, PlatformModule } from '@app/platform';
import { createTestDatabase, TestDatabase } from './test-database';
import { scopedForTests } from './test-scope';
import { applyEnv, QUIET_TEST_ENV } from './test-env';

export interface TestContext {
  app: INestApplicationContext;
  database: TestDatabase;
  get<T>(token: Type<T> | string | symbol | (abstract new (...args: never[]) => T)): T;
  /** Services whose every call runs as this tenant, whatever their parameters are named. */
  forTenant(tenantId: string): Pick<TestContext, 'get'>;
  close(): Promise<void>;
}

type Importable = Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference;

/**
 * A Nest context with the platform (real database, real cache) and the given modules, for medium
 * tests of services and repositories. Every spec file gets its own database; `sharedDatabase` boots
 * a second instance on another context's database (native only), which leaves dropping it to its owner.
 */
export async function startTestContext(
  imports: Importable[] = [],
  extraEnv: Record<string, string> = {},
  sharedDatabase?: TestDatabase,
): Promise<TestContext> {
  const database = sharedDatabase ?? (await createTestDatabase());
  const dropOwned = () => (sharedDatabase ? Promise.resolve() : database.drop());
  const restoreEnv = applyEnv({ ...QUIET_TEST_ENV, ...database.env, ...extraEnv });
  try {
    const moduleRef = await Test.createTestingModule({
      imports: [PlatformModule.forRoot({ schedulers: false }), ...imports],
    })
      .setLogger(new JsonLogger({ level: 'error', format: 'pretty', stream: process.stderr }))
      .compile();
    const app = await moduleRef.init();
    return {
      app,
      database,
      get: (token) => scopedForTests(app.get(token as never)),
      forTenant: (tenantId) => ({ get: (token) => scopedForTests(app.get(token as never), { tenantId }) }),
      close: async () => {
        await app.close();
        restoreEnv();
        await dropOwned();
      },
    };
  } catch (error) {
    restoreEnv();
    await dropOwned();
    throw error;
  }
}
