import { DataSource } from 'typeorm';
import { NO_OPS_DATA_WARNING } from '@app/ops';
import { DemoDataService } from '@app/ops';
import {
  lastWeekOf,
  SEED_QUERY,
  startTestApp,
  TestApp,
  testBackend,
  TOP_PROD_SERVERS_BY_CPU_SQL,
} from '@test/support';

/** Planner, tools, assets and documents together over HTTP, on the demo dataset of a fresh tenant. */
describe(`planner end to end on the demo dataset (${testBackend()})`, () => {
  const NOW = new Date();
  let t: TestApp;
  let tenantId: string;
  let operator: string;
  let operatorKeyId: string;
  let reader: string;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'planner-demo' } });
    tenantId = created.body.tenant.id;
    const admin = created.body.secret as string;
    const operatorKey = await t.request('POST', '/api/keys', {
      key: admin,
      body: { name: 'ops', role: 'operator' },
    });
    [operator, operatorKeyId] = [operatorKey.body.secret, operatorKey.body.key.id];
    reader = (await t.request('POST', '/api/keys', { key: admin, body: { name: 'viewer', role: 'reader' } }))
      .body.secret;
    const status = await t.app.get(DemoDataService).load(tenantId, { scale: 'small', now: NOW });
    expect(status).toMatchObject({ state: 'ready', counts: { published_assets: 2, runbooks: 6 } });
    db = t.app.get(DataSource);
  }, 400_000);
  afterAll(() => t.close());

  it("POST /ops/plan gives the seed's plan from the published catalog and mappings", async () => {
    const res = await t.request('POST', '/ops/plan', {
      key: operator,
      body: { query: SEED_QUERY, now: NOW.toISOString() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, planner: 'fallback', model: null, errors: [] });
    const { start, end } = lastWeekOf(NOW);
    // metric_query filters on environment and type itself (ci_filter), so the plan is one step.
    const [metric] = res.body.plan.steps;
    expect(res.body.plan.steps).toHaveLength(1);
    expect(metric).toMatchObject({
      tool_type: 'metric_query',
      parameters: {
        metric_name: 'cpu_usage',
        agg: 'avg',
        top_n: 5,
        order: 'desc',
        time_range: { start: start.toISOString(), end: end.toISOString() },
        ci_filter: { environment: 'prod', ci_type: 'server' },
      },
    });
    expect(res.body.asset_versions).toMatchObject({
      catalog: { name: 'ops', version: 1 },
      mappings: { name: 'ops-keywords', version: 1 },
      prompt: null,
    });
    expect(res.body.asset_versions.tools).toEqual([
      { name: 'metric_query', source: 'builtin', version: null },
    ]);
  });

  it('POST /ops/ask answers with the top 5 prod servers that SQL finds independently', async () => {
    const res = await t.request('POST', '/ops/ask', {
      key: operator,
      body: { query: SEED_QUERY, now: NOW.toISOString() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'answered', answer_source: 'template', model: null });
    const { start, end } = lastWeekOf(NOW);
    const expected: Array<{ name: string; value: number }> = await db.query(TOP_PROD_SERVERS_BY_CPU_SQL, [
      tenantId,
      start,
      end,
      5,
    ]);
    expect(expected).toHaveLength(5);
    const metric = res.body.execution.steps.find((s: any) => s.tool_type === 'metric_query');
    const groups = metric.result.data.groups as Array<{ ci_name: string; value: number }>;
    expect(groups.map((g) => g.ci_name)).toEqual(expected.map((e) => e.name));
    groups.forEach((g, i) => expect(g.value).toBeCloseTo(Number(expected[i].value), 3));
    expect(res.body.answer).toContain(`1. ${expected[0].name}`);
    expect(res.body.answer).toContain(expected[4].name);
    expect(res.body.asset_versions.catalog).toEqual({ name: 'ops', version: 1 });

    // One step engine: the plan ran as a stage, stored and listed with the other stage runs.
    const runId = res.body.execution.run_id as string;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await t.request('GET', '/ops/stage/runs?stage_name=ops.ask', { key: operator });
    expect(listed.status).toBe(200);
    expect(listed.body.runs).toContainEqual(
      expect.objectContaining({
        run_id: runId,
        stage_name: 'ops.ask',
        status: 'ok',
        summary: { total: 1, succeeded: 1, failed: 0 },
        // The run names the key that asked, as a stage run started directly does.
        key_id: operatorKeyId,
        request_id: res.headers.get('x-request-id'),
      }),
    );
    const stored = await t.request('GET', `/ops/stage/runs/${runId}`, { key: operator });
    expect(stored.status).toBe(200);
    expect(stored.body.results.map((r: { tool_name: string }) => r.tool_name)).toEqual(['metric_query']);
    expect(stored.body.results[0].result.data.groups.map((g: { ci_name: string }) => g.ci_name)).toEqual(
      expected.map((e) => e.name),
    );
    expect((await t.request('GET', '/ops/stage/runs?status=bogus', { key: operator })).status).toBe(400);
  });

  it('answers an English question end to end through graph_analysis', async () => {
    const [database] = await db.query(
      `SELECT name FROM ops_configuration_items WHERE tenant_id = $1 AND environment = 'prod' AND ci_type = 'database' ORDER BY name LIMIT 1`,
      [tenantId],
    );
    const res = await t.request('POST', '/ops/ask', {
      key: operator,
      body: { query: `What is affected if ${database.name} fails?`, now: NOW.toISOString() },
    });
    expect(res.status).toBe(200);
    expect(res.body.planning.plan.steps).toEqual([
      expect.objectContaining({
        tool_type: 'graph_analysis',
        parameters: expect.objectContaining({ scope: database.name, view: 'impact' }),
      }),
    ]);
    expect(res.body.status).toBe('answered');
    const graph = res.body.execution.steps[0].result.data;
    expect(graph.nodes.length).toBeGreaterThan(1);
    expect(res.body.answer).toContain('impact');
  });

  it.each([
    ['CPU 사용률 급증 대응 런북', 'high-cpu.ko.md'],
    ['runbook for rolling back a bad deployment', 'deployment-rollback.en.md'],
  ])('POST /ops/stage/execute with document_search finds the runbook for "%s"', async (query, file) => {
    const res = await t.request('POST', '/ops/stage/execute', {
      key: operator,
      body: {
        stage_name: 'search_documents',
        tools: [{ tool_name: 'document_search', input: { query, top_k: 3, search_type: 'hybrid' } }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    const result = res.body.results[0].result;
    expect(result.metadata).toMatchObject({ query, search_type: 'hybrid' });
    expect(result.data.count).toBe(result.data.results.length);
    expect(result.data.results.map((r: { document_name: string }) => r.document_name)).toContain(file);
  });

  it('answers a question that needs no tool without running any', async () => {
    const res = await t.request('POST', '/ops/ask', { key: operator, body: { query: '안녕하세요' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'answered',
      execution: null,
      planning: { plan: { intent: 'general', steps: [] } },
    });
  });

  it('records a failed step in the answer instead of dropping it', async () => {
    const res = await t.request('POST', '/ops/ask', {
      key: operator,
      body: { query: 'show the impact of a failure of nosuch-01' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.execution.steps[0]).toMatchObject({
      tool_type: 'graph_analysis',
      status: 'failed',
      result: { success: false },
    });
    expect(res.body.answer).toContain('graph_analysis failed');
  });

  it('says plainly that nothing is loaded, and how to load it, on a tenant without OPS data', async () => {
    const empty = await t.request('POST', '/api/tenants', { body: { slug: 'planner-empty' } });
    const res = await t.request('POST', '/ops/ask', {
      key: empty.body.secret,
      body: { query: SEED_QUERY, now: NOW.toISOString() },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('no_data');
    expect(res.body.warnings).toContain(NO_OPS_DATA_WARNING);
    expect(res.body.answer).toContain('POST /ops/demo/load');
    const loaded = await t.request('POST', '/ops/ask', {
      key: operator,
      body: { query: SEED_QUERY, now: NOW.toISOString() },
    });
    expect(loaded.body.warnings).not.toContain(NO_OPS_DATA_WARNING);
    expect(loaded.body.status).toBe('answered');
    expect(loaded.body.answer).not.toMatch(/\d\.\d{3,}/);
  });

  it('requires the operator role and a real query', async () => {
    expect((await t.request('POST', '/ops/plan', { key: reader, body: { query: SEED_QUERY } })).status).toBe(
      403,
    );
    expect((await t.request('POST', '/ops/ask', { key: reader, body: { query: SEED_QUERY } })).status).toBe(
      403,
    );
    expect((await t.request('POST', '/ops/plan', { key: null, body: { query: SEED_QUERY } })).status).toBe(
      401,
    );
    const blank = await t.request('POST', '/ops/plan', { key: operator, body: { query: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
    const extra = await t.request('POST', '/ops/ask', { key: operator, body: { query: 'x', steps: [] } });
    expect(extra.status).toBe(400);
  });

  it('reports the llm health check as disabled without an endpoint', async () => {
    const ready = await t.request('GET', '/health/ready', { key: null });
    expect(ready.body.checks.llm).toMatchObject({ status: 'disabled' });
  });
});
