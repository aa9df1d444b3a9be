import { InMemoryPlanningKnowledge, PlanningKnowledge } from '@app/planner';
import { ToolRegistry } from '@app/tools';
import {
  feedOpsKnowledge,
  registerFakeOpsTools,
  SEED_QUERY,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';

describe(`planner over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let operator: string;
  let reader: string;

  beforeAll(async () => {
    t = await startTestApp();
    registerFakeOpsTools(t.app.get(ToolRegistry));
    feedOpsKnowledge(t.app.get<PlanningKnowledge, InMemoryPlanningKnowledge>(PlanningKnowledge));
    operator = (await t.request('POST', '/api/keys', { body: { name: 'ops', role: 'operator' } })).body
      .secret;
    reader = (await t.request('POST', '/api/keys', { body: { name: 'viewer', role: 'reader' } })).body.secret;
  });
  afterAll(() => t.close());

  it('POST /ops/plan returns the seed plan from the fallback planner when no LLM is configured', async () => {
    const res = await t.request('POST', '/ops/plan', {
      key: operator,
      body: { query: SEED_QUERY, now: '2026-11-22T09:00:00Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      planner: 'fallback',
      model: null,
      errors: [],
      prompt: null,
    });
    const [lookup, metric] = res.body.plan.steps;
    expect(lookup).toMatchObject({
      tool_type: 'ci_lookup',
      parameters: { filters: { environment: 'prod' }, limit: 5 },
    });
    expect(metric).toMatchObject({
      tool_type: 'metric_query',
      parameters: {
        metric: 'cpu_usage',
        aggregation: 'avg',
        top_n: 5,
        time_range: { start: '2026-11-09T00:00:00.000Z', end: '2026-11-16T00:00:00.000Z' },
        filters: { environment: 'prod' },
      },
    });
    expect(res.body.asset_versions).toMatchObject({
      catalog: { name: 'ops-catalog', version: 3 },
      mappings: { version: 2 },
    });
    expect(res.body.asset_versions.tools).toEqual([
      { name: 'ci_lookup', source: 'builtin', version: null },
      { name: 'metric_query', source: 'builtin', version: null },
    ]);
  });

  it('POST /ops/ask answers the seed question with the top 5 prod servers by average CPU', async () => {
    const res = await t.request('POST', '/ops/ask', { key: operator, body: { query: SEED_QUERY } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'answered', answer_source: 'template', model: null });
    const metric = res.body.execution.steps.find((s: any) => s.tool_type === 'metric_query');
    expect(metric.result.data.groups.map((g: any) => g.ci_name)).toEqual([
      'api-02',
      'web-03',
      'web-01',
      'api-01',
      'web-02',
    ]);
    expect(res.body.answer).toMatch(/1\. api-02 \(sys-005\): [\d.]+\n2\. web-03/);
    expect(res.body.execution.steps).toHaveLength(2);
    expect(res.body.timings).toEqual(
      expect.objectContaining({
        planning_ms: expect.any(Number),
        execution_ms: expect.any(Number),
        total_ms: expect.any(Number),
      }),
    );
  });

  it('answers a question that needs no tool without running any', async () => {
    const res = await t.request('POST', '/ops/ask', { key: operator, body: { query: '안녕하세요' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'answered',
      execution: null,
      planning: { plan: { intent: 'general', steps: [] } },
    });
    expect(res.body.answer).toContain('ci_lookup');
  });

  it('answers in English with every step result, including a failed lookup', async () => {
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
    expect(res.body.answer).toContain('graph_analysis failed: No CI named nosuch-01.');
  });

  it('requires the operator role and a real query', async () => {
    const forbidden = await t.request('POST', '/ops/plan', { key: reader, body: { query: SEED_QUERY } });
    expect(forbidden.status).toBe(403);
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
