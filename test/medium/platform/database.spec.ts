import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import {
  AuthService,
  buildDataSourceOptions,
  EmbeddedPostgres,
  prepareDatabase,
  runAsSystem,
} from '@app/platform';
import { startTestContext, TestContext, testBackend } from '@test/support';
import { pendingSchemaChanges } from '../../../apps/api/src/cli/schema-diff';
import { AppModule } from '../../../apps/api/src/app.module';

describe(`database (${testBackend()})`, () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestContext();
  });
  afterAll(() => ctx.close());

  it('runs on PostgreSQL with pgvector and the tenants table', async () => {
    const dataSource = ctx.get(DataSource);
    const [{ extversion }] = await dataSource.query(
      `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
    );
    expect(extversion).toMatch(/^0\.8\./);
    const [{ distance }] = await dataSource.query(
      `SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector AS distance`,
    );
    expect(Number(distance)).toBeCloseTo(1);
    const tables = await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables.map((t: { table_name: string }) => t.table_name)).toEqual(
      expect.arrayContaining(['tenants', 'api_keys', 'migrations']),
    );
  });

  it('applies migrations once even when several processes boot at the same time', async () => {
    const options = ctx.get(DataSource).options;
    // Migrations run as the owner (DATABASE_MIGRATION_URL), the application role cannot create tables.
    const owner = ctx.database.env.DATABASE_MIGRATION_URL || undefined;
    const migration = { ...options, entities: [], ...(owner ? { url: owner } : {}) } as typeof options;
    const concurrent = await Promise.all(
      [1, 2, 3].map(() => prepareDatabase(new DataSource({ ...options, entities: [] }), { migration })),
    );
    for (const dataSource of concurrent) await dataSource.destroy();
    const rows = await ctx.get(DataSource).query('SELECT name FROM migrations');
    expect(new Set(rows.map((r: { name: string }) => r.name)).size).toBe(rows.length);
  });

  it('creates exactly one bootstrap admin key, however many processes race for it', async () => {
    const auth = ctx.get(AuthService);
    const results = await Promise.all([
      auth.bootstrapFirstAdmin(),
      auth.bootstrapFirstAdmin(),
      auth.bootstrapFirstAdmin(),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const keys = await runAsSystem('test: every key', () => auth.listKeys(undefined));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ role: 'admin', is_system_admin: true, tenant_slug: 'default' });
    expect((await auth.bootstrapFirstAdmin()).created).toBe(false);
  });
});

describe(`schema drift (${testBackend()})`, () => {
  it('the migrations produce exactly the schema the entities describe', async () => {
    const ctx = await startTestContext([AppModule.forRoot({ schedulers: false })]);
    try {
      const diff = await pendingSchemaChanges(ctx.app);
      expect(diff.up).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});

describe('embedded data directory lock', () => {
  it('refuses a second server on the same data directory and frees it on stop', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-lock-'));
    const first = new EmbeddedPostgres(dir, 2);
    try {
      const connection = await first.start();
      const second = new EmbeddedPostgres(dir, 2);
      await expect(second.start()).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED' });

      const dataSource = await prepareDatabase(
        new DataSource(buildDataSourceOptions({ embedded: connection, poolSize: 2, statementTimeoutMs: 0 })),
      );
      await dataSource.query(`INSERT INTO tenants (slug, name) VALUES ('persisted', 'p')`);
      await dataSource.destroy();
      await first.stop();

      const reopened = new EmbeddedPostgres(dir, 2);
      const again = await reopened.start();
      const ds2 = await new DataSource(
        buildDataSourceOptions({ embedded: again, poolSize: 2, statementTimeoutMs: 0 }),
      ).initialize();
      expect(await ds2.query(`SELECT slug FROM tenants`)).toEqual([{ slug: 'persisted' }]);
      await ds2.destroy();
      await reopened.stop();
    } finally {
      await first.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
