import os from 'node:os';
import path from 'node:path';

export type TestBackend = 'native' | 'embedded';

export function testBackend(): TestBackend {
  const value = process.env.TEST_DB_BACKEND ?? 'native';
  if (value !== 'native' && value !== 'embedded')
    throw new Error(`TEST_DB_BACKEND must be native or embedded, got ${value}`);
  return value;
}

export const NATIVE_ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The application role tests connect as (row-level security applies to it); created by global setup. */
export const TEST_APP_ROLE = 'ops_app';

/** The native admin URL with the application role as user (trust authentication on the test server). */
export function asAppRole(url: string): string {
  return asRole(url, TEST_APP_ROLE);
}

/** The native admin URL with `role` as user (trust authentication on the test server). */
export function asRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = '';
  return parsed.toString();
}

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One id per `jest` invocation (set by global setup, inherited by workers). */
export function testRunId(): string {
  const id = process.env.OPS_TEST_RUN_ID;
  if (!id)
    throw new Error('OPS_TEST_RUN_ID is unset: run medium/e2e tests through jest with the global setup');
  return id;
}

export function templateDatabaseName(): string {
  return `ops_test_tpl_${testRunId()}`;
}

export function testRunDir(): string {
  return path.join(os.tmpdir(), `ops-test-${testRunId()}`);
}

export function embeddedTemplateDir(): string {
  return path.join(testRunDir(), 'template');
}

/** The guard against pointing destructive test set-up at a real database. */
export function assertTestTarget(name: string): void {
  if (!name.toLowerCase().includes('test')) {
    throw new Error(`Refusing to use "${name}" for tests: its name must contain "test".`);
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
