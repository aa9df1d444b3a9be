import { randomUUID } from 'node:crypto';
import { Module, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AssetRegistryModule, AssetTypeRegistry, type ToolAssetSpec } from '@app/asset-registry';
import { AuthService, ClusterLimits, DatabaseInfo, SqlToolDatabase } from '@app/platform';
import { StageExecutorService, ToolContext, ToolRegistry, ToolsConfig, ToolsModule } from '@app/tools';
import {
  checkSqlQuery,
  createSqlTool,
  DemoDataService,
  OpsConfig,
  OpsModule,
  SqlToolFactory,
} from '@app/ops';
import {
  SQL_FUNCTION_ALLOWLIST,
  SqlRowCapExceededError,
  SqlToolBudgetSpentError,
  SqlToolBusyError,
  SqlToolRepository,
  SqlToolSuspendedError,
  withRowCounter,
} from '@app/ops/testing';
import { MAPPING_ASSET_TYPE } from '@app/planner';
import { startTestContext, TestContext, testBackend } from '@test/support';

/** The demo publishes knowledge for the planner (its keyword mappings): the planner's type, as the app has it. */
@Module({ imports: [AssetRegistryModule] })
class PlannerAssetTypesModule implements OnModuleInit {
  constructor(private readonly types: AssetTypeRegistry) {}

  onModuleInit(): void {
    this.types.register(MAPPING_ASSET_TYPE);
  }
}

const caller = (tenantId: string) => ({
  tenantId,
  userId: 'tester',
  requestId: randomUUID(),
  traceId: 'trace',
});
const context = (tenantId: string): ToolContext => ({
  ...caller(tenantId),
  deadline: Date.now() + 30_000,
  signal: new AbortController().signal,
});

function lastWeek(now = new Date()): { start: Date; end: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * 86_400_000;
  return { start: new Date(monday - 7 * 86_400_000), end: new Date(monday) };
}

describe(`OPS tools over the demo dataset (${testBackend()})`, () => {
  let ctx: TestContext;
  let tenantId: string;
  let otherTenantId: string;
  let registry: ToolRegistry;
  let db: DataSource;
  // Both loads use one anchor: the dataset is relative to its anchor, and a later anchor may add newer points.
  const anchor = new Date();

  beforeAll(async () => {
    ctx = await startTestContext([ToolsModule, OpsModule, PlannerAssetTypesModule]);
    const auth = ctx.get(AuthService);
    tenantId = (await auth.createTenant('demo-ops', 'Demo', undefined)).tenant.id;
    otherTenantId = (await auth.createTenant('other-ops', 'Other', undefined)).tenant.id;
    const status = await ctx.get(DemoDataService).load(tenantId, { scale: 'small', now: anchor });
    expect(status).toMatchObject({ state: 'ready', phase: 'done' });
    registry = ctx.get(ToolRegistry);
    db = ctx.get(DataSource);
  }, 300_000);
  afterAll(() => ctx.close());

  it('registers the built-in OPS tools with schemas the planner can read', () => {
    const tools = registry.list(tenantId);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['ci_lookup', 'graph_analysis', 'history_query', 'metric_query']),
    );
    const metric = tools.find((t) => t.name === 'metric_query')!;
    expect(metric.input_schema).toMatchObject({
      required: ['metric_name'],
      properties: { agg: { default: 'avg' } },
    });
  });

  it('re-loading the dataset adds nothing, and another tenant sees none of it', async () => {
    const before = (await ctx.get(DemoDataService).status(tenantId)).counts;
    expect(before.items).toBeGreaterThan(80);
    expect(before.metric_samples).toBeGreaterThan(300_000);
    await db.query(`UPDATE ops_demo_loads SET state = 'failed' WHERE tenant_id = $1`, [tenantId]);
    const after = await ctx.get(DemoDataService).load(tenantId, { scale: 'small', now: anchor });
    expect(after.counts).toEqual(before);
    const other = await registry.execute(context(otherTenantId), 'ci_lookup', { limit: 5 });
    expect(other.data).toMatchObject({ items: [], total: 0 });
  });

  it('answers "지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개" with ci_lookup + metric_query', async () => {
    const run = await ctx.get(StageExecutorService).execute(
      caller(tenantId),
      {
        stage_name: 'execute',
        tools: [
          { id: 'servers', tool_name: 'ci_lookup', input: { keywords: ['서버', '운영'], limit: 500 } },
          {
            id: 'cpu',
            tool_name: 'metric_query',
            input: {
              metric_name: 'cpu_usage',
              agg: 'avg',
              time_range: { relative: 'last_week' },
              top_n: 5,
              ci_ids: { $ref: 'servers.data.items[*].id' },
            },
          },
        ],
      },
      new AbortController().signal,
    );
    expect(run.status).toBe('ok');
    const servers = run.results[0].result.data as {
      items: Array<{ environment: string; ci_type: string }>;
      total: number;
    };
    expect(servers.items.every((i) => i.environment === 'prod' && i.ci_type === 'server')).toBe(true);

    const { start, end } = lastWeek();
    const expected: Array<{ name: string; value: number }> = await db.query(
      `SELECT ci.name, avg(m.value) AS value FROM ops_metric_samples m
       JOIN ops_configuration_items ci ON ci.id = m.ci_id
       WHERE m.tenant_id = $1 AND ci.environment = 'prod' AND ci.ci_type = 'server' AND m.metric_name = 'cpu_usage'
         AND m.step_seconds = 3600 AND m.ts >= $2 AND m.ts < $3
       GROUP BY ci.name ORDER BY avg(m.value) DESC LIMIT 5`,
      [tenantId, start, end],
    );
    const cpu = run.results[1].result.data as {
      groups: Array<{ ci_name: string; value: number }>;
      resolution_seconds: number;
    };
    expect(cpu.resolution_seconds).toBe(3600);
    expect(cpu.groups.map((g) => g.ci_name)).toEqual(expected.map((e) => e.name));
    cpu.groups.forEach((g, i) => expect(g.value).toBeCloseTo(Number(expected[i].value), 6));
    expect(cpu.groups[0].ci_name).toBe('prod-order-api-02');
  });

  it('reads 5-minute samples for a bucketed last-24h series and hourly ones for longer windows', async () => {
    const result = await registry.execute(context(tenantId), 'metric_query', {
      metric_name: 'memory_usage',
      agg: 'max',
      time_range: { relative: 'last_24h' },
      bucket: '1h',
      top_n: 2,
      ci_filter: { environment: 'prod', names: ['prod-payment-db'] },
    });
    expect(result.success).toBe(true);
    const data = result.data as {
      resolution_seconds: number;
      groups: Array<{ series: unknown[]; ci_name: string }>;
    };
    expect(data.resolution_seconds).toBe(300);
    expect(data.groups.map((g) => g.ci_name)).toEqual(['prod-payment-db']);
    expect(data.groups[0].series.length).toBeGreaterThanOrEqual(24);

    const overall = await registry.execute(context(tenantId), 'metric_query', {
      metric_name: 'request_rate',
      agg: 'sum',
      group_by: 'none',
      time_range: { relative: 'last_7d' },
      ci_filter: { environment: 'staging' },
    });
    expect(overall.data).toMatchObject({ resolution_seconds: 3600, groups: [{ ci_id: null }] });
  });

  it('lists prod incidents of the last 7 days like SQL over the events does', async () => {
    const result = await registry.execute(context(tenantId), 'history_query', {
      kinds: ['incident'],
      ci_filter: { environment: 'prod' },
      limit: 500,
    });
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM ops_history_events e JOIN ops_configuration_items ci ON ci.id = e.ci_id
       WHERE e.tenant_id = $1 AND e.kind = 'incident' AND ci.environment = 'prod' AND e.occurred_at >= now() - interval '7 days'`,
      [tenantId],
    );
    const data = result.data as { total: number; events: Array<{ kind: string; environment: string }> };
    expect(count).toBeGreaterThan(0);
    expect(data.total).toBe(count);
    expect(data.events.every((e) => e.kind === 'incident' && e.environment === 'prod')).toBe(true);
  });

  it('walks impact and dependency graphs, reporting the order <-> inventory cycle once', async () => {
    const impact = await registry.execute(context(tenantId), 'graph_analysis', {
      scope: 'prod-order-db',
      view: 'impact',
      depth: 3,
    });
    const names = (impact.data as { nodes: Array<{ name: string }> }).nodes.map((n) => n.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'prod-order-db',
        'prod-order-api',
        'prod-order-worker',
        'prod-order-system',
        'prod-order-web',
        'prod-inventory-api',
      ]),
    );
    const dependency = await registry.execute(context(tenantId), 'graph_analysis', {
      scope: ['prod-order-api'],
      view: 'dependency',
      depth: 9,
    });
    const data = dependency.data as {
      depth: number;
      cycles: Array<{ source: string; target: string }>;
      nodes: Array<{ name: string }>;
    };
    expect(data.depth).toBe(5);
    expect(dependency.warnings).toContain('depth capped at 5');
    expect(data.cycles).toEqual([
      expect.objectContaining({ source: 'prod-inventory-api', target: 'prod-order-api' }),
    ]);
    expect(data.nodes.filter((n) => n.name === 'prod-order-api')).toHaveLength(1);
  });

  describe('sql tools', () => {
    const spec = (query: string, extra: Partial<ToolAssetSpec> = {}): ToolAssetSpec => ({
      name: 'servers_by_env',
      description: 'Servers of an environment with their average metric',
      kind: 'sql',
      tool_config: { query, row_limit: 50, timeout_ms: 5000 },
      tool_input_schema: {
        type: 'object',
        properties: { env: { type: 'string' }, metric: { type: 'string', default: 'cpu_usage' } },
        required: ['env'],
        additionalProperties: false,
      },
      tool_output_schema: null,
      ...extra,
    });
    const QUERY = `SELECT c.name, avg(m.value) AS avg_value, count(*) AS samples
      FROM configuration_items c JOIN metrics m ON m.ci_id = c.id
      WHERE c.environment = :env AND c.ci_type = 'server' AND m.metric_name = :metric AND m.step_seconds = 3600
      GROUP BY c.name ORDER BY avg_value DESC`;

    /**
     * A repository with some limits of its own, the rest from the test configuration; the cluster-wide
     * limits (Redis on native) are the application's, so two repositories act like two replicas.
     */
    const repositoryWith = (overrides: Partial<OpsConfig & ToolsConfig>) =>
      new SqlToolRepository(
        ctx.get(SqlToolDatabase),
        ctx.get(DatabaseInfo),
        { ...ctx.get(OpsConfig), ...overrides },
        { ...ctx.get(ToolsConfig), ...overrides },
        ctx.get(ClusterLimits),
      );
    const counted = (sql: string) => withRowCounter(checkSqlQuery(sql, 2).text);

    it('runs a parameterised SELECT over the caller tenant only, with numbers as numbers', async () => {
      const factory = ctx.get(SqlToolFactory);
      registry.setDynamicTool(tenantId, factory.create(spec(QUERY), { version: 1 }));
      const result = await registry.execute(context(tenantId), 'servers_by_env', { env: 'prod' });
      expect(result.success).toBe(true);
      const data = result.data as {
        rows: Array<{ name: string; avg_value: number; samples: number }>;
        truncated: boolean;
      };
      expect(data.rows.length).toBeGreaterThan(5);
      expect(typeof data.rows[0].samples).toBe('number');
      expect(data.rows[0].name).toMatch(/^prod-/);

      expect(registry.has(otherTenantId, 'servers_by_env')).toBe(false);
      expect(registry.list(otherTenantId).map((t) => t.name)).not.toContain('servers_by_env');
      await expect(
        registry.execute(context(otherTenantId), 'servers_by_env', { env: 'prod' }),
      ).rejects.toMatchObject({
        code: 'TOOL_NOT_FOUND',
      });
      registry.setDynamicTool(otherTenantId, factory.create(spec(QUERY)));
      const other = await registry.execute(context(otherTenantId), 'servers_by_env', { env: 'prod' });
      expect(other.data).toMatchObject({ rows: [], row_count: 0 });
    });

    it('binds injection attempts in the input as plain values', async () => {
      registry.setDynamicTool(tenantId, ctx.get(SqlToolFactory).create(spec(QUERY)));
      for (const env of [
        "prod' OR '1'='1",
        "prod'; DELETE FROM ops_configuration_items; --",
        'prod) OR (1=1',
      ]) {
        const result = await registry.execute(context(tenantId), 'servers_by_env', { env });
        expect(result).toMatchObject({ success: true, data: { rows: [] } });
      }
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM ops_configuration_items WHERE tenant_id = $1`,
        [tenantId],
      );
      expect(count).toBeGreaterThan(80);
    });

    it('refuses queries that write, chain statements, reach other schemas or read system settings', () => {
      const factory = ctx.get(SqlToolFactory);
      for (const query of [
        'SELECT 1; DELETE FROM configuration_items',
        'WITH x AS (DELETE FROM configuration_items RETURNING id) SELECT * FROM x',
        'SELECT * FROM public.api_keys',
        'SELECT * FROM pg_catalog.pg_authid',
        "SELECT current_setting('data_directory')",
        "SELECT * FROM query_to_xml('select * from public.api_keys', true, true, '')",
        'SELECT name FROM configuration_items WHERE environment = :undeclared',
        // The attack run's payloads: unicode-escaped identifiers naming other schemas and catalogs.
        'SELECT * FROM U&"\\0070ublic".document_chunks',
        'SELECT key_hash FROM U&"\\0070ublic".api_keys',
        'SELECT * FROM U&"\\0070g_authid"',
        'SELECT * FROM pg_hba_file_rules',
        'SELECT * FROM pg_settings',
        'SELECT * FROM pg_stat_activity',
        'SELECT key_hash FROM api_keys',
        'SELECT count(*) FROM ops_configuration_items',
        // Issue 27: row generators the planner counts as 10 rows each.
        'WITH a AS (SELECT array_agg(id) AS ids FROM configuration_items) SELECT count(*) FROM a, unnest(a.ids) x, unnest(a.ids) y, unnest(a.ids) z',
      ]) {
        expect(() => factory.create(spec(query))).toThrow(
          expect.objectContaining({ code: 'TOOL_INPUT_INVALID' }),
        );
      }
    });

    it('ends a query that runs past its timeout and keeps serving (embedded: the database thread restarts)', async () => {
      const schema = { type: 'object', properties: {}, additionalProperties: false };
      const burn = `SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c, configuration_items d
        WHERE length(a.name || b.name || c.name || d.name) > 0`;
      // The row counter would stop it first: lift it to see the timeout act.
      const tool = createSqlTool(spec(burn, { name: 'burn', tool_input_schema: schema, timeout_ms: 300 }), {
        repository: repositoryWith({ SQL_TOOL_MAX_ROWS_EXAMINED: 1e9 }),
      });
      registry.setDynamicTool(tenantId, tool);
      const result = await registry.execute(context(tenantId), 'burn', {});
      expect(result).toMatchObject({ success: false, error_details: { code: 'TIMEOUT' } });
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM ops_configuration_items WHERE tenant_id = $1`,
        [tenantId],
      );
      expect(count).toBeGreaterThan(80);
    });

    it('embedded: pauses the sql tools of a tenant whose runaways keep restarting the database, and only its', async () => {
      const limited = new SqlToolRepository(
        ctx.get(SqlToolDatabase),
        ctx.get(DatabaseInfo),
        { ...ctx.get(OpsConfig), EMBEDDED_SQL_INTERRUPTS_PER_HOUR: 1 },
        ctx.get(ToolsConfig),
      );
      const burn = `SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c, configuration_items d
        WHERE length(a.name || b.name || c.name || d.name) > 0`;
      const first = await limited.run(tenantId, burn, [], 10, 300).catch((error: unknown) => error);
      expect(first).toMatchObject({ code: '57014' });
      const second = await limited.run(tenantId, 'SELECT 1 AS one', [], 10, 300).catch((e: unknown) => e);
      if (ctx.database.backend === 'embedded') {
        expect(second).toBeInstanceOf(SqlToolSuspendedError);
        expect((second as SqlToolSuspendedError).retryAfterSeconds).toBeGreaterThan(3500);
      } else {
        // Native cancels with statement_timeout and restarts nothing: no pause.
        expect(second).toMatchObject({ rows: [{ one: 1 }] });
      }
      await expect(limited.run(otherTenantId, 'SELECT 1 AS one', [], 10, 300)).resolves.toMatchObject({
        rows: [{ one: 1 }],
      });
    });

    it('no function the guard allows returns a set on this server (issue 27)', async () => {
      const rows: Array<{ proname: string }> = await db.query(
        `SELECT DISTINCT proname FROM pg_catalog.pg_proc WHERE proretset AND proname = ANY($1::text[])`,
        [[...SQL_FUNCTION_ALLOWLIST]],
      );
      expect(rows.map((r) => r.proname)).toEqual([]);
    });

    it('stops a query once its joins, scans or rescans made SQL_TOOL_MAX_ROWS_EXAMINED rows (issue 27)', async () => {
      // No time budget here: a restart left by an earlier test may still be delaying the first query.
      const limited = repositoryWith({ SQL_TOOL_MAX_ROWS_EXAMINED: 1000, EMBEDDED_SQL_SECONDS_PER_HOUR: 0 });
      for (const sql of [
        'SELECT count(*) AS n FROM configuration_items a, configuration_items b',
        'SELECT count(*) AS n FROM configuration_items a JOIN configuration_items b ON a.status = b.status',
        // A correlated subquery: its rescans count (ORDER BY makes every outer row run it).
        'SELECT (SELECT count(*) FROM configuration_items b WHERE b.name <> a.name) AS n FROM configuration_items a ORDER BY 1',
        'WITH x AS (SELECT a.id FROM configuration_items a, configuration_items b) SELECT count(*) AS n FROM x',
      ]) {
        await expect(limited.run(tenantId, counted(sql), [], 10, 30_000)).rejects.toBeInstanceOf(
          SqlRowCapExceededError,
        );
      }
      // Under the cap the same repository answers, again and again (the counter restarts per query).
      for (let k = 0; k < 3; k++) {
        const small = await limited.run(
          tenantId,
          counted('SELECT count(*) AS n FROM configuration_items'),
          [],
          10,
          30_000,
        );
        expect(small.rows[0].n).toBeGreaterThan(80);
      }
      // Through a tool: the refusal is a tool error naming the cap, not a crash.
      registry.setDynamicTool(
        tenantId,
        createSqlTool(
          spec('SELECT count(*) AS n FROM configuration_items a, configuration_items b', {
            name: 'pairs',
            tool_input_schema: { type: 'object', properties: {}, additionalProperties: false },
          }),
          { repository: limited },
        ),
      );
      const pairs = await registry.execute(context(tenantId), 'pairs', {});
      expect(pairs).toMatchObject({
        success: false,
        error_details: { code: 'QUERY_TOO_EXPENSIVE', max_rows_examined: 1000 },
      });
    });

    it("counts every sql tool query against the tenant's hourly database time, and only its (issue 27)", async () => {
      // 1 ms per hour: the first query (it ends well inside its timeout) spends it all.
      const limited = repositoryWith({
        EMBEDDED_SQL_SECONDS_PER_HOUR: 0.001,
        SQL_TOOL_SECONDS_PER_HOUR: 0.001,
      });
      const one = counted('SELECT count(*) AS n FROM configuration_items');
      await expect(limited.run(tenantId, one, [], 10, 5000)).resolves.toMatchObject({ truncated: false });
      const second = await limited.run(tenantId, one, [], 10, 5000).catch((error: unknown) => error);
      {
        expect(second).toBeInstanceOf(SqlToolBudgetSpentError);
        expect((second as SqlToolBudgetSpentError).retryAfterSeconds).toBeGreaterThan(3500);
        expect((second as Error).message).toContain(
          ctx.database.backend === 'embedded' ? 'EMBEDDED_SQL_SECONDS_PER_HOUR' : 'SQL_TOOL_SECONDS_PER_HOUR',
        );
        registry.setDynamicTool(
          tenantId,
          createSqlTool(
            spec('SELECT 1 AS one', {
              name: 'one',
              tool_input_schema: { type: 'object', properties: {}, additionalProperties: false },
            }),
            { repository: limited },
          ),
        );
        const refused = await registry.execute(context(tenantId), 'one', {});
        expect(refused).toMatchObject({ success: false, error_details: { code: 'RATE_LIMITED' } });
        expect(refused.error_details).toHaveProperty('retry_after_seconds');
      }
      await expect(limited.run(otherTenantId, one, [], 10, 5000)).resolves.toMatchObject({
        truncated: false,
      });
    });

    it("refuses a tenant's second concurrent sql tool query, on this replica and another, while another tenant's runs (issue 27)", async () => {
      // No budget and no row cap here: the first query runs until its timeout. No wait for a slot, so a
      // query over the cap is refused at once.
      const overrides = {
        SQL_TOOL_MAX_ROWS_EXAMINED: 1e9,
        SQL_TOOL_SECONDS_PER_HOUR: 0,
        EMBEDDED_SQL_SECONDS_PER_HOUR: 0,
        TOOL_QUEUE_WAIT_MS: 0,
      };
      const limited = repositoryWith(overrides);
      const burn =
        counted(`SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c,
        configuration_items d WHERE length(a.name || b.name || c.name || d.name) > 0`);
      let firstSettled = false;
      const first = limited
        .run(tenantId, burn, [], 10, 3000)
        .catch((error: unknown) => error)
        .finally(() => (firstSettled = true));
      expect(limited.runningFor(tenantId)).toBe(1);
      const second = await limited.run(tenantId, 'SELECT 1 AS one', [], 10, 5000).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(SqlToolBusyError);
      expect((second as SqlToolBusyError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(limited.runningFor(tenantId)).toBe(1);
      // Through a tool: 429 RATE_LIMITED with retry_after_seconds.
      registry.setDynamicTool(
        tenantId,
        createSqlTool(
          spec('SELECT 1 AS one', {
            name: 'one_busy',
            tool_input_schema: { type: 'object', properties: {}, additionalProperties: false },
          }),
          { repository: limited },
        ),
      );
      const refused = await registry.execute(context(tenantId), 'one_busy', {});
      expect(firstSettled).toBe(false);
      expect(refused).toMatchObject({
        success: false,
        error_details: { code: 'RATE_LIMITED', max_concurrent_per_tenant: 1 },
      });
      if (ctx.database.backend === 'native') {
        // Another replica (its own process semaphore, the same Redis): the tenant's lease is taken.
        const replica = repositoryWith(overrides);
        let onReplica: unknown;
        for (let k = 0; k < 50 && !firstSettled && !(onReplica instanceof SqlToolBusyError); k++)
          onReplica = await replica.run(tenantId, 'SELECT 1 AS one', [], 10, 5000).catch((e: unknown) => e);
        expect(onReplica).toBeInstanceOf(SqlToolBusyError);
      }
      // Another tenant is not held by it (native: runs beside it; embedded: waits only for the one
      // statement the database runs at a time).
      await expect(limited.run(otherTenantId, 'SELECT 1 AS one', [], 10, 30_000)).resolves.toMatchObject({
        rows: [{ one: 1 }],
      });
      expect(await first).toMatchObject({ code: '57014' });
      expect(limited.runningFor(tenantId)).toBe(0);
      await expect(limited.run(tenantId, 'SELECT 1 AS one', [], 10, 5000)).resolves.toMatchObject({
        rows: [{ one: 1 }],
      });
    });

    // Native: the server enforces each query's own statement_timeout; the cap is the embedded database's.
    (testBackend() === 'embedded' ? it : it.skip)(
      'embedded: an sql tool query gets at most EMBEDDED_SQL_MAX_TIMEOUT_MS whatever its timeout_ms (issue 27)',
      async () => {
        const limited = repositoryWith({ EMBEDDED_SQL_MAX_TIMEOUT_MS: 300, SQL_TOOL_MAX_ROWS_EXAMINED: 1e9 });
        const burn =
          counted(`SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c,
        configuration_items d WHERE length(a.name || b.name || c.name || d.name) > 0`);
        await expect(limited.run(tenantId, burn, [], 10, 60_000)).rejects.toMatchObject({ code: '57014' });
      },
    );

    it('cannot run a query the planner says is too expensive', async () => {
      const factory = ctx.get(SqlToolFactory);
      const schema = { type: 'object', properties: {}, additionalProperties: false };
      const crossJoin = 'SELECT count(*) AS n FROM metrics a JOIN metrics b ON a.ts < b.ts';
      registry.setDynamicTool(
        tenantId,
        factory.create(spec(crossJoin, { name: 'huge', tool_input_schema: schema })),
      );
      const huge = await registry.execute(context(tenantId), 'huge', {});
      expect(huge).toMatchObject({ success: false, error_details: { code: 'QUERY_TOO_EXPENSIVE' } });
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM ops_configuration_items WHERE tenant_id = $1`,
        [tenantId],
      );
      expect(count).toBeGreaterThan(80);
    });
  });
});
