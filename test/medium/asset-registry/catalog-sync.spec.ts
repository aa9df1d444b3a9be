import { DataSource } from 'typeorm';
import {
  type Actor,
  AssetRegistryModule,
  AssetRegistryService,
  type CatalogContent,
  CatalogSyncService,
  PublishedAssetReader,
} from '@app/asset-registry';
import { APP_ROLE, AuthService } from '@app/platform';
import { NATIVE_ADMIN_URL, queryAsOwner, startTestContext, TestContext, testBackend } from '@test/support';

const OPS_TABLES = `
  CREATE SCHEMA ops;
  CREATE TYPE ops.server_status AS ENUM ('running', 'stopped', 'error');
  CREATE TABLE ops.racks (id text PRIMARY KEY, site text NOT NULL);
  COMMENT ON TABLE ops.racks IS '랙 정보';
  CREATE TABLE ops.servers (
    server_id text PRIMARY KEY,
    hostname text NOT NULL,
    environment text NOT NULL,
    status ops.server_status NOT NULL DEFAULT 'running',
    tier varchar(16) CHECK (tier IN ('gold', 'silver')),
    rack_id text REFERENCES ops.racks (id),
    cpu_cores integer
  );
  COMMENT ON TABLE ops.servers IS '서버 정보';
  COMMENT ON COLUMN ops.servers.server_id IS '서버 고유 ID (sys-xxx 형식)';
  COMMENT ON COLUMN ops.servers.environment IS '환경';
  CREATE TABLE ops.metrics (
    server_id text NOT NULL REFERENCES ops.servers (server_id),
    metric_name text NOT NULL,
    value numeric NOT NULL,
    ts timestamptz NOT NULL,
    PRIMARY KEY (server_id, metric_name, ts)
  );
  INSERT INTO ops.racks VALUES ('r1', 'seoul'), ('r2', 'busan');
  INSERT INTO ops.servers (server_id, hostname, environment, status, tier, rack_id, cpu_cores)
  SELECT 'sys-' || i, 'host-' || i, (ARRAY['prod', 'staging', 'dev'])[1 + i % 3],
         'running', NULL, CASE WHEN i % 2 = 0 THEN 'r1' ELSE 'r2' END, 4
    FROM generate_series(1, 12) i;
  INSERT INTO ops.metrics
  SELECT 'sys-' || (1 + i % 12), (ARRAY['cpu_usage', 'memory_usage'])[1 + i % 2], i, now() - i * interval '1 minute'
    FROM generate_series(1, 40) i;
`;

describe(`catalog sync (${testBackend()})`, () => {
  let ctx: TestContext;
  let actor: Actor;
  /** The same tenant's admin acting as a system admin (the only one allowed to read the service database). */
  let systemAdmin: Actor & { isSystemAdmin: boolean };
  let sync: CatalogSyncService;

  beforeAll(async () => {
    // The native test server is on loopback, which source hosts may reach only when allowlisted.
    ctx = await startTestContext([AssetRegistryModule], {
      SOURCE_HOST_ALLOWLIST: new URL(NATIVE_ADMIN_URL).hostname,
      SECRET_ENV_GRANTS: 'ops:OPS_SECRET_CATALOG_TEST_URL',
    });
    sync = ctx.get(CatalogSyncService);
    const tenant = await ctx.get(AuthService).createTenant('ops', 'Ops', undefined);
    actor = { tenantId: tenant.tenant.id, userId: 'admin' };
    systemAdmin = { ...actor, isSystemAdmin: true };
    // The tables are created by their owner; the application role is granted read access to them.
    await queryAsOwner(
      ctx.database,
      ctx.app.get(DataSource),
      `${OPS_TABLES}; GRANT USAGE ON SCHEMA ops TO ${APP_ROLE}; GRANT SELECT ON ALL TABLES IN SCHEMA ops TO ${APP_ROLE};`,
    );
  });
  afterAll(() => ctx.close());

  it('describes real tables (types, keys, references, comments, enumerated values) as a draft catalog', async () => {
    const result = await sync.sync(systemAdmin, { name: 'ops_catalog', schema: 'ops' });
    expect(result.created).toBe(true);
    expect(result.asset).toMatchObject({ asset_type: 'catalog', status: 'draft', published_version: null });
    const content = result.asset.content as CatalogContent;
    expect(content.source).toMatchObject({ kind: 'internal', schema: 'ops' });
    expect(content.tables.map((t) => t.name)).toEqual(['metrics', 'racks', 'servers']);

    const servers = content.tables.find((t) => t.name === 'servers')!;
    expect(servers).toMatchObject({ description: '서버 정보', primary_key: ['server_id'] });
    expect(servers.references).toEqual([
      { columns: ['rack_id'], table: 'racks', referenced_columns: ['id'] },
    ]);
    const column = (name: string) => servers.columns.find((c) => c.name === name)!;
    expect(column('server_id')).toMatchObject({
      type: 'text',
      primary_key: true,
      nullable: false,
      description: '서버 고유 ID (sys-xxx 형식)',
    });
    expect(column('environment')).toMatchObject({
      description: '환경',
      enum_values: ['dev', 'prod', 'staging'],
    });
    expect(column('status').enum_values).toEqual(['running', 'stopped', 'error']);
    expect(column('tier')).toMatchObject({ type: 'character varying(16)', enum_values: ['gold', 'silver'] });
    expect(column('hostname').enum_values).toBeUndefined();
    expect(column('rack_id').enum_values).toBeUndefined();
    expect(column('cpu_cores')).toMatchObject({ type: 'integer', nullable: true });
    const metrics = content.tables.find((t) => t.name === 'metrics')!;
    expect(metrics.primary_key).toEqual(['server_id', 'metric_name', 'ts']);
    expect(metrics.columns.find((c) => c.name === 'metric_name')?.enum_values).toEqual([
      'cpu_usage',
      'memory_usage',
    ]);
    expect(result.summary).toEqual({ tables: 3, columns: 13, enum_columns: 4 });
  });

  it('leaves the service’s own tables out of the default schema and honours an include list', async () => {
    const own = await sync.sync(systemAdmin, { name: 'public_catalog' });
    const names = (own.asset.content as CatalogContent).tables.map((t) => t.name);
    expect(names).not.toEqual(expect.arrayContaining(['api_keys']));
    expect(names).not.toContain('tb_asset_registry');
    const only = await sync.sync(systemAdmin, { name: 'servers_only', schema: 'ops', tables: ['servers'] });
    expect((only.asset.content as CatalogContent).tables.map((t) => t.name)).toEqual(['servers']);
    await expect(
      sync.sync(systemAdmin, { name: 'x', schema: 'ops', tables: ['nope'] }),
    ).rejects.toMatchObject({
      code: 'CATALOG_SOURCE_INVALID',
    });
  });

  it('refuses a tenant admin the service database (403), and never catalogues system schemas', async () => {
    await expect(sync.sync(actor, { name: 'mine' })).rejects.toMatchObject({
      code: 'CATALOG_SYNC_FORBIDDEN',
      kind: 'FORBIDDEN',
      message: expect.stringContaining('system admin'),
    });
    await expect(sync.sync(actor, { name: 'mine', schema: 'ops' })).rejects.toMatchObject({
      code: 'CATALOG_SYNC_FORBIDDEN',
    });
    for (const schema of ['pg_catalog', 'information_schema', 'PG_CATALOG', 'pg_toast']) {
      await expect(sync.sync(systemAdmin, { name: 'sys', schema })).rejects.toMatchObject({
        code: 'CATALOG_SOURCE_INVALID',
      });
    }
  });

  it('never samples values from the service’s own tables, even for a system admin who names them', async () => {
    const auth = ctx.get(AuthService);
    const other = await auth.createTenant('victim', 'Victim', undefined);
    await auth.createKey(
      other.tenant.id,
      { name: 'victim-key-name', role: 'reader', userId: 'victim-user' },
      undefined,
    );
    await auth.createKey(
      other.tenant.id,
      { name: 'victim-key-name', role: 'reader', userId: 'victim-user' },
      undefined,
    );
    await ctx.get(DataSource).query(
      `INSERT INTO chat_conversations (tenant_id, user_id, title)
       SELECT $1, 'victim-user', 'secret plans' FROM generate_series(1, 5)`,
      [other.tenant.id],
    );
    const result = await sync.sync(systemAdmin, {
      name: 'service_tables',
      tables: ['api_keys', 'chat_conversations', 'tenants'],
    });
    const text = JSON.stringify(result.asset.content);
    expect(text).not.toContain('victim');
    expect(text).not.toContain('secret plans');
    const tables = (result.asset.content as CatalogContent).tables;
    expect(tables.map((t) => t.name).sort()).toEqual(['api_keys', 'chat_conversations', 'tenants']);
    const sampled = tables.flatMap((t) => t.columns).filter((c) => c.enum_values && !c.name.endsWith('role'));
    expect(sampled).toEqual([]);
  });

  it('keeps admin edits on re-sync, and the published catalog is what readers get', async () => {
    const assets = ctx.get(AssetRegistryService);
    const first = await sync.sync(systemAdmin, {
      name: 'edited',
      schema: 'ops',
      tables: ['servers'],
      enum_max_distinct: 0,
    });
    const content = first.asset.content as CatalogContent;
    expect(content.tables[0].columns.find((c) => c.name === 'environment')?.enum_values).toBeUndefined();
    const hostname = content.tables[0].columns.find((c) => c.name === 'hostname')!;
    hostname.description = '호스트 이름';
    hostname.aliases = ['host', '호스트'];
    await assets.update(actor, first.asset.id, { spec: { content } });
    await assets.publish(actor, first.asset.id);

    await queryAsOwner(
      ctx.database,
      ctx.app.get(DataSource),
      `ALTER TABLE ops.servers ADD COLUMN owner text`,
    );
    const again = await sync.sync(systemAdmin, { name: 'edited', schema: 'ops', tables: ['servers'] });
    expect(again.created).toBe(false);
    expect(again.asset).toMatchObject({ status: 'draft', published_version: 1 });
    const columns = (again.asset.content as CatalogContent).tables[0].columns;
    expect(columns.find((c) => c.name === 'hostname')).toMatchObject({
      description: '호스트 이름',
      aliases: ['host', '호스트'],
    });
    expect(columns.map((c) => c.name)).toContain('owner');

    const served = await ctx.get(PublishedAssetReader).getPublishedCatalog(actor.tenantId, 'edited');
    expect(served?.version).toBe(1);
    expect(served?.content.tables[0].columns.map((c) => c.name)).not.toContain('owner');
  });

  it('syncs from a published source asset that points at another database', async () => {
    const assets = ctx.get(AssetRegistryService);
    const options = ctx.get(DataSource).options as {
      url?: string;
      host?: string;
      port?: number;
      username?: string;
      database?: string;
    };
    const connection: Record<string, unknown> = {};
    if (options.url) {
      process.env.OPS_SECRET_CATALOG_TEST_URL = options.url;
      connection.url_ref = 'env:OPS_SECRET_CATALOG_TEST_URL';
    } else {
      Object.assign(connection, {
        host: options.host,
        port: options.port,
        user: options.username,
        database: options.database,
      });
    }
    const source = await assets.create(actor, {
      asset_type: 'source',
      name: 'ops_db',
      spec: { content: { kind: 'postgres', connection, schema: 'ops' } },
    });
    await expect(sync.sync(actor, { name: 'via_source', source: 'ops_db' })).rejects.toMatchObject({
      code: 'CATALOG_SOURCE_INVALID',
    });
    await assets.publish(actor, source.id);
    if (testBackend() === 'embedded') {
      // The embedded server's Unix socket is the service's own machine: refused unless allowlisted.
      await expect(sync.sync(actor, { name: 'via_source', source: 'ops_db' })).rejects.toMatchObject({
        code: 'CATALOG_SOURCE_UNAVAILABLE',
        message: 'Could not connect to the source database.',
      });
      return;
    }
    const result = await sync.sync(actor, { name: 'via_source', source: 'ops_db', tables: ['racks'] });
    expect(result.asset.content).toMatchObject({
      source: { kind: 'source_asset', name: 'ops_db', schema: 'ops' },
      tables: [{ name: 'racks', description: '랙 정보', primary_key: ['id'] }],
    });
  });
});
