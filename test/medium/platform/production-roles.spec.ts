import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@app/migrations';
import {
  APP_ROLE,
  buildDataSourceOptions,
  prepareDatabase,
  runAsSystem,
  SQL_TOOL_ROLE,
  SYSTEM_ROLE,
} from '@app/platform';
import {
  applyReadmeRoleRecipe,
  asRole,
  assertTestTarget,
  NATIVE_ADMIN_URL,
  OWNER_ROLE,
  readmeRoleRecipe,
  testBackend,
  testRunId,
  withDatabase,
} from '@test/support';

/**
 * docs/operations.md "Production database roles", as an operator would run it: the recipe's statements in a
 * fresh database, then a boot that migrates as the owner (not a superuser) and serves request work,
 * system work and the sql tool each as its own login role.
 */
(testBackend() === 'native' ? describe : describe.skip)('production database roles recipe', () => {
  const name = `ops_test_${testRunId()}_recipe_${randomBytes(3).toString('hex')}`;
  const url = withDatabase(NATIVE_ADMIN_URL, name);
  const options = (role: string, applicationName: string) =>
    buildDataSourceOptions({
      databaseUrl: asRole(url, role),
      poolSize: 2,
      statementTimeoutMs: 0,
      applicationName,
    });
  let app: DataSource | undefined;

  beforeAll(async () => {
    assertTestTarget(name);
    await applyReadmeRoleRecipe(NATIVE_ADMIN_URL, name);
  }, 60_000);
  afterAll(async () => {
    if (app?.isInitialized) await app.destroy();
    const admin = new Client({ connectionString: NATIVE_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
  });

  it('names an owner, the application, the sql tool and the system role; only the system role bypasses', async () => {
    const roles = readmeRoleRecipe()
      .map((statement) => /^CREATE ROLE (\w+)/.exec(statement)?.[1])
      .filter(Boolean);
    expect(roles).toEqual([OWNER_ROLE, APP_ROLE, SQL_TOOL_ROLE, SYSTEM_ROLE]);
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `SELECT rolname, rolsuper, rolbypassrls, rolcanlogin, rolcreaterole FROM pg_roles
          WHERE rolname = ANY($1) ORDER BY rolname`,
        [roles],
      );
      for (const row of rows)
        expect(row).toEqual({
          rolname: row.rolname,
          rolsuper: false,
          rolbypassrls: row.rolname === SYSTEM_ROLE,
          rolcanlogin: true,
          rolcreaterole: false,
        });
    } finally {
      await admin.end();
    }
  });

  it('boots on it: every migration runs as the owner, and each kind of work logs in as its own role', async () => {
    app = await prepareDatabase(new DataSource(options(APP_ROLE, 'ops-api')), {
      migration: options(OWNER_ROLE, 'ops-api-migrate'),
      system: options(SYSTEM_ROLE, 'ops-api-system'),
    });
    const applied: unknown[] = await app.query('SELECT name FROM migrations');
    expect(applied).toHaveLength(MIGRATIONS.length);
    const [owner] = await app.query(
      `SELECT DISTINCT pg_get_userbyid(relowner) AS name FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`,
    );
    expect(owner).toEqual({ name: OWNER_ROLE });
    expect(await app.query('SELECT current_user AS name')).toEqual([{ name: APP_ROLE }]);
    expect(await runAsSystem('test', () => app!.query('SELECT current_user AS name'))).toEqual([
      { name: SYSTEM_ROLE },
    ]);
    const sqlTool = new Client({ connectionString: asRole(url, SQL_TOOL_ROLE) });
    await sqlTool.connect();
    try {
      const { rows } = await sqlTool.query('SELECT count(*)::int AS n FROM ops_configuration_items');
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await sqlTool.end();
    }
  }, 120_000);
});
