import { randomBytes } from 'node:crypto';
import { SourceDatabasePools } from '@app/asset-registry';
import { SourceSqlRepository } from '@app/ops';
import {
  createSourceDatabase,
  FakeLlmServer,
  planWhenTrained,
  sleep,
  SourceDatabase,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';

const suffix = randomBytes(4).toString('hex');

const TOP_CPU_SQL = `SELECT s.server_id, round(avg(m.value), 1) AS avg_cpu
  FROM metrics m JOIN servers s ON s.server_id = m.server_id
 WHERE m.metric_name = 'cpu_usage' AND s.environment = :environment
 GROUP BY s.server_id ORDER BY avg_cpu DESC, s.server_id LIMIT :top`;

/**
 * Seed 004's `postgres_prod` flow on a second database of the local PostgreSQL (whatever backend the
 * app runs on): register the source with its password in a tenant secret, sync and publish its catalog,
 * publish a query asset reading it, run it as a tool, in a stage and from /ops/ask; writes, missing
 * secrets and unreachable sources are refused clearly.
 */
describe(`sql on a registered source database (${testBackend()})`, () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let llm: FakeLlmServer;
  let key: string;
  let tenantId: string;
  let db: SourceDatabase;
  let SOURCE_DB: string;
  let READER: string;
  let HOST: string;
  let PORT: number;

  const request = (method: string, route: string, body?: unknown) =>
    t.request(method, route, { key, ...(body === undefined ? {} : { body }) });

  async function publish(body: Record<string, unknown>) {
    const created = await request('POST', '/api/assets', body);
    expect(created.status).toBe(201);
    return request('POST', `/api/assets/${created.body.id}/publish`);
  }

  async function waitForTool(name: string) {
    for (let i = 0; i < 200; i++) {
      if ((await request('GET', `/ops/tools/${name}`)).status === 200) return;
      await sleep(25);
    }
    throw new Error(`tool ${name} never appeared`);
  }

  const execute = (name: string, input: Record<string, unknown>) =>
    request('POST', `/ops/tools/${name}/execute`, { input });

  const source = (name: string, connection: Record<string, unknown>) => ({
    asset_type: 'source',
    name,
    content: { kind: 'postgres', connection, schema: 'public' },
  });

  const query = (name: string, sourceRef: string, sql: string, extra: Record<string, unknown> = {}) => ({
    asset_type: 'query',
    name,
    description: 'Servers of one environment by average CPU usage (seed 004)',
    source_ref: sourceRef,
    query_sql: sql,
    query_params: {
      type: 'object',
      properties: {
        environment: {
          type: 'string',
          enum: ['prod', 'staging', 'dev'],
          'x-catalog-column': 'servers.environment',
        },
        top: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
      },
      required: ['environment', 'top'],
    },
    query_metadata: { sample_input: { environment: 'prod', top: 5 }, row_limit: 100 },
    ...extra,
  });

  beforeAll(async () => {
    db = await createSourceDatabase();
    ({ name: SOURCE_DB, reader: READER, host: HOST, port: PORT } = db);
    llm = await FakeLlmServer.start();
    t = await startTestApp({
      DEMO_DATA: 'off',
      SOURCE_HOST_ALLOWLIST: HOST,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SOURCE_POOL_MAX_CONNECTIONS: '2',
      SOURCE_POOL_IDLE_SECONDS: '2',
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
    });
    const tenant = await t.request('POST', '/api/tenants', { body: { slug: `src-${suffix}` } });
    key = tenant.body.secret;
    tenantId = tenant.body.tenant.id;
    expect((await request('PUT', '/api/secrets/postgres_prod_password', { value: db.password })).status).toBe(
      200,
    );
    expect(
      (
        await publish(
          source('postgres_prod', {
            host: HOST,
            port: PORT,
            database: SOURCE_DB,
            user: READER,
            password_ref: 'secret:postgres_prod_password',
          }),
        )
      ).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await db?.drop();
  });

  it('syncs the source catalog, publishes a query reading it and runs it as a tool and in a stage', async () => {
    const synced = await request('POST', '/api/assets/catalog/sync', {
      name: 'postgres_prod',
      source: 'postgres_prod',
    });
    expect(synced.status).toBe(200);
    expect(synced.body.asset.content.source).toMatchObject({ kind: 'source_asset', name: 'postgres_prod' });
    const servers = synced.body.asset.content.tables.find(
      (table: { name: string }) => table.name === 'servers',
    );
    expect(servers).toMatchObject({ description: '서버 정보' });
    expect(
      servers.columns.find((column: { name: string }) => column.name === 'environment').enum_values.sort(),
    ).toEqual(['dev', 'prod', 'staging']);
    expect((await request('POST', `/api/assets/${synced.body.asset.id}/publish`)).status).toBe(200);

    const published = await publish(query('top_cpu_servers', 'postgres_prod', TOP_CPU_SQL));
    expect(published.status).toBe(200);
    expect(published.body.dry_run).toMatchObject({ status: 'passed' });
    await waitForTool('top_cpu_servers');
    const definition = await request('GET', '/ops/tools/top_cpu_servers');
    expect(definition.body).toMatchObject({ tool_type: 'query', source_ref: 'postgres_prod' });

    const run = await execute('top_cpu_servers', { environment: 'prod', top: 3 });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ success: true, data: { row_count: 3, truncated: false } });
    const expected = await db.admin(async (c) =>
      (await c.query(TOP_CPU_SQL.replace(':environment', `'prod'`).replace(':top', '3'))).rows.map(
        (row: { server_id: string; avg_cpu: string }) => ({
          server_id: row.server_id,
          avg_cpu: Number(row.avg_cpu),
        }),
      ),
    );
    expect(run.body.data.rows).toEqual(expected);

    const stage = await request('POST', '/ops/stage/execute', {
      stage_name: 'prod_cpu',
      tools: [{ tool_name: 'top_cpu_servers', input: { environment: 'staging', top: 2 } }],
    });
    expect(stage.status).toBe(200);
    expect(stage.body).toMatchObject({ status: 'ok' });
    expect(stage.body.results[0].result).toMatchObject({ success: true, data: { row_count: 2 } });
  });

  it('/ops/ask plans the query over the source catalog and runs it on the source', async () => {
    llm.enqueue(
      FakeLlmServer.json({
        intent: 'top_cpu',
        steps: [{ id: 's1', tool_type: 'top_cpu_servers', parameters: { environment: 'prod', top: 5 } }],
      }),
    );
    llm.setDefault(FakeLlmServer.text('prod 서버 CPU top 5입니다.'));
    const res = await request('POST', '/ops/ask', {
      query: '지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개를 보여줘',
    });
    llm.setDefault(null);
    expect(res.status).toBe(200);
    expect(res.body.planning.plan.steps[0]).toMatchObject({
      tool_type: 'top_cpu_servers',
      source: 'postgres_prod',
    });
    expect(res.body.execution.steps).toEqual([
      expect.objectContaining({ tool_type: 'top_cpu_servers', source: 'postgres_prod', status: 'succeeded' }),
    ]);
    const prompt = llm.chatRequests[0].body.messages[1].content as string;
    expect(prompt).toContain('Source "postgres_prod"');
    expect(prompt).toContain('table servers - 서버 정보');
  });

  it('without an LLM, /ops/ask plans the query from the value its source catalog lists and runs it there', async () => {
    // What is asserted is the trained planner's plan (the one every later question gets).
    await planWhenTrained(t, { query: 'prod 환경 서버 CPU 사용률 top 5', use_llm: false }, key);
    const res = await request('POST', '/ops/ask', {
      query: 'prod 환경 서버 CPU 사용률 top 5',
      use_llm: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.planning.plan.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool_type: 'top_cpu_servers',
          source: 'postgres_prod',
          parameters: expect.objectContaining({ environment: 'prod' }),
        }),
      ]),
    );
    const step = (res.body.execution.steps as Array<Record<string, any>>).find(
      (s) => s.tool_type === 'top_cpu_servers',
    );
    expect(step).toMatchObject({ source: 'postgres_prod', status: 'succeeded' });
    expect(step?.result.data.row_count).toBeGreaterThan(0);
  });

  it('caps the rows, and the guard refuses writes and catalogs before anything is sent', async () => {
    expect(
      (
        await publish(
          query(
            'all_metrics',
            'postgres_prod',
            'SELECT server_id, value FROM metrics WHERE metric_name <> :environment',
            {
              query_params: { type: 'object', properties: { environment: { type: 'string' } } },
              query_metadata: { sample_input: { environment: 'x' }, row_limit: 7 },
            },
          ),
        )
      ).status,
    ).toBe(200);
    await waitForTool('all_metrics');
    const capped = await execute('all_metrics', { environment: 'none' });
    expect(capped.body).toMatchObject({ success: true, data: { row_count: 7, truncated: true } });

    for (const [name, sql, reason] of [
      ['wipe_servers', 'DELETE FROM servers WHERE environment = :environment', /only a SELECT/],
      [
        'probe_write',
        'SELECT record_probe() WHERE :environment IS NOT NULL',
        /function "record_probe" is not allowed/,
      ],
      [
        'read_roles',
        'SELECT rolname FROM pg_roles WHERE rolname = :environment',
        /PostgreSQL's own catalogs/,
      ],
      [
        'read_schema',
        'SELECT 1 FROM information_schema.tables WHERE table_name = :environment',
        /schema-qualified/,
      ],
    ] as const) {
      const refused = await publish(
        query(name, 'postgres_prod', sql, {
          query_params: { type: 'object', properties: { environment: { type: 'string' } } },
          query_metadata: {},
        }),
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: 'ASSET_CONTRACT_INVALID',
        message: expect.stringMatching(reason),
      });
    }
    const count = await db.admin(
      async (c) => (await c.query(`SELECT count(*)::int AS n FROM servers`)).rows[0].n,
    );
    expect(count).toBe(30);
  });

  it('runs on the source in a read-only transaction with a statement timeout (the walls behind the guard)', async () => {
    const repository = t.app.get(SourceSqlRepository);
    await expect(
      repository.run(tenantId, 'postgres_prod', 'SELECT record_probe()', [], 10, 5000),
    ).rejects.toMatchObject({
      code: '25006',
    });
    await expect(
      repository.run(tenantId, 'postgres_prod', 'SELECT pg_catalog.pg_sleep(5)', [], 10, 200),
    ).rejects.toMatchObject({ code: '57014' });
    const count = await db.admin(
      async (c) => (await c.query(`SELECT count(*)::int AS n FROM servers`)).rows[0].n,
    );
    expect(count).toBe(30);
  });

  it('holds at most SOURCE_POOL_MAX_CONNECTIONS connections per tenant and source, and closes idle pools', async () => {
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => execute('top_cpu_servers', { environment: 'dev', top: 1 + i })),
    );
    expect(runs.map((r) => r.body.success)).toEqual(Array(6).fill(true));
    const connections = await db.admin(
      async (c) =>
        (
          await c.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ops-source-query'`,
            [SOURCE_DB],
          )
        ).rows[0].n,
    );
    expect(connections).toBeLessThanOrEqual(2);
    expect(connections).toBeGreaterThan(0);
    const pools = t.app.get(SourceDatabasePools);
    expect(pools.openPools).toBeGreaterThan(0);
    for (let i = 0; i < 200 && pools.openPools > 0; i++) await sleep(50);
    expect(pools.openPools).toBe(0);
    // The next call opens a new pool.
    expect((await execute('top_cpu_servers', { environment: 'dev', top: 1 })).body.success).toBe(true);
  });

  it('a rotated secret takes effect on the next call; a missing secret and an unreachable source are refused clearly', async () => {
    expect(
      (
        await request('PUT', '/api/secrets/postgres_prod_url', {
          value: `postgres://${READER}:${db.password}@${HOST}:${PORT}/${SOURCE_DB}`,
        })
      ).status,
    ).toBe(200);
    expect((await publish(source('rotating_db', { url_ref: 'secret:postgres_prod_url' }))).status).toBe(200);
    expect(
      (await publish(query('rotating_top', 'rotating_db', TOP_CPU_SQL, { query_metadata: {} }))).status,
    ).toBe(200);
    await waitForTool('rotating_top');
    expect((await execute('rotating_top', { environment: 'prod', top: 1 })).body.success).toBe(true);

    // Rotated to credentials the server rejects: the next call uses them (and says nothing of why).
    await request('PUT', '/api/secrets/postgres_prod_url', {
      value: `postgres://no_such_role_${suffix}:x@${HOST}:${PORT}/${SOURCE_DB}`,
    });
    const rejected = await execute('rotating_top', { environment: 'prod', top: 1 });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      success: false,
      error: expect.stringContaining('Could not connect to the source database "rotating_db"'),
      error_details: { code: 'SOURCE_UNAVAILABLE', source: 'rotating_db' },
    });
    expect(JSON.stringify(rejected.body)).not.toContain('no_such_role');
    // Rotated back: works again.
    await request('PUT', '/api/secrets/postgres_prod_url', {
      value: `postgres://${READER}:${db.password}@${HOST}:${PORT}/${SOURCE_DB}`,
    });
    expect((await execute('rotating_top', { environment: 'prod', top: 1 })).body.success).toBe(true);

    // The secret is deleted: the call names the reference, never a value.
    expect((await request('DELETE', '/api/secrets/postgres_prod_url')).status).toBe(204);
    const missing = await execute('rotating_top', { environment: 'prod', top: 1 });
    expect(missing.body).toMatchObject({
      success: false,
      error_details: { code: 'SOURCE_SECRET_MISSING', secret_ref: 'secret:postgres_prod_url' },
    });

    // A closed port on an allowed host, and a host the egress policy refuses (loopback by another name):
    // the same answer, before or after trying to connect.
    for (const [name, connection] of [
      ['closed_db', { host: HOST, port: 1, database: SOURCE_DB, user: READER }],
      ['not_allowed_db', { host: 'localhost', port: PORT, database: SOURCE_DB, user: READER }],
    ] as const) {
      expect((await publish(source(name, connection))).status).toBe(200);
      const published = await publish(query(`${name}_top`, name, TOP_CPU_SQL));
      expect(published.status).toBe(200);
      expect(published.body.dry_run).toMatchObject({ status: 'failed' });
      await waitForTool(`${name}_top`);
      const res = await execute(`${name}_top`, { environment: 'prod', top: 1 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: false,
        error: expect.stringContaining(`Could not connect to the source database "${name}"`),
        error_details: { code: 'SOURCE_UNAVAILABLE', source: name },
      });
    }
  });
});
