import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { NATIVE_ADMIN_URL, testBackend, testRunDir, testRunId } from './test-backend';

export default async function globalTeardown(): Promise<void> {
  rmSync(testRunDir(), { recursive: true, force: true });
  if (testBackend() !== 'native') return;
  const admin = new Client({ connectionString: NATIVE_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`ops_test_%${testRunId()}%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
