import { randomBytes } from 'node:crypto';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { OWNER_ROLE } from './production-roles';
import {
  asAppRole,
  asRole,
  assertTestTarget,
  embeddedTemplateDir,
  NATIVE_ADMIN_URL,
  TEST_REDIS_URL,
  templateDatabaseName,
  testBackend,
  TestBackend,
  testRunDir,
  testRunId,
  withDatabase,
} from './test-backend';

export interface TestDatabase {
  backend: TestBackend;
  /** Environment that points the app at this database (and, for native, at the real Redis). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fresh, migrated database for one spec file: a `CREATE DATABASE ... TEMPLATE` copy on the native
 * server, or a copy of the migrated PGlite data directory for the embedded backend.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const suffix = randomBytes(4).toString('hex');
  return testBackend() === 'native' ? createNative(suffix) : createEmbedded(suffix);
}

async function createNative(suffix: string): Promise<TestDatabase> {
  const name = `ops_test_${testRunId()}_${suffix}`;
  assertTestTarget(name);
  await withAdmin(async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(
          `CREATE DATABASE "${name}" TEMPLATE "${templateDatabaseName()}" OWNER ${OWNER_ROLE}`,
        );
        return;
      } catch (error) {
        // Two spec files copying the template at the same instant: retry.
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await sleep(100 + Math.random() * 200);
      }
    }
  });
  return {
    backend: 'native',
    env: {
      // The application connects as the row-level-security role, migrations run as the owner (docs/operations.md
      // "Production database roles"); the system and sql tool URLs are derived from DATABASE_URL.
      DATABASE_URL: asAppRole(withDatabase(NATIVE_ADMIN_URL, name)),
      DATABASE_MIGRATION_URL: asRole(withDatabase(NATIVE_ADMIN_URL, name), OWNER_ROLE),
      REDIS_URL: TEST_REDIS_URL,
      CACHE_KEY_PREFIX: `test:${suffix}:`,
      DATA_DIR: path.join(testRunDir(), suffix),
    },
    drop: () =>
      withAdmin((admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined),
      ),
  };
}

function createEmbedded(suffix: string): Promise<TestDatabase> {
  const dir = path.join(testRunDir(), `db-${suffix}`);
  assertTestTarget(dir);
  cpSync(embeddedTemplateDir(), dir, { recursive: true });
  rmSync(path.join(dir, 'ops.lock'), { force: true });
  return Promise.resolve({
    backend: 'embedded',
    env: { DATA_DIR: dir, DATABASE_URL: '', DATABASE_MIGRATION_URL: '', REDIS_URL: '' },
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  });
}

async function withAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: NATIVE_ADMIN_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
