import { AssetRegistryService } from '@app/asset-registry';
import { AuthService, HealthRegistry } from '@app/platform';
import { AskService, PLANNER_ASSET_NAMES, PlannerModule, PlannerService } from '@app/planner';
import { ToolRegistry } from '@app/tools';
import { NO_OPS_DATA_WARNING, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { FakeLlmServer, SEED_QUERY, startTestContext, TestContext, testBackend } from '@test/support';

const NOW = new Date('2026-11-22T09:00:00Z');
const RANGE = { start: '2026-11-09T00:00:00Z', end: '2026-11-16T00:00:00Z' };
const GOOD_PLAN = {
  intent: 'QueryMetrics',
  steps: [
    {
      id: 'primary',
      tool_type: 'ci_lookup',
      parameters: { keywords: [], filters: { environment: 'prod' }, limit: 5 },
    },
    {
      id: 'metric',
      tool_type: 'metric_query',
      parameters: {
        metric_name: 'cpu_usage',
        agg: 'avg',
        time_range: RANGE,
        ci_filter: { environment: 'prod', ci_type: 'server' },
        top_n: 5,
      },
    },
  ],
};

describe(`planner with an OpenAI-compatible LLM (${testBackend()})`, () => {
  let llm: FakeLlmServer;
  let ctx: TestContext;
  let planner: PlannerService;
  let tenantId: string;
  let executed: jest.SpyInstance;
  const plan = (model?: string) => planner.plan({ tenantId, query: SEED_QUERY, now: NOW, model });
  const calls = () => executed.mock.calls.length;
  const ask = () =>
    ctx
      .get(AskService)
      .ask({ tenantId, userId: 'u', requestId: 'r', traceId: 't', query: SEED_QUERY, now: NOW });

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    ctx = await startTestContext([PlannerModule], {
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '400',
      LLM_MAX_RETRIES: '1',
      LLM_RETRY_BASE_DELAY_MS: '10',
    });
    tenantId = (await ctx.get(AuthService).createTenant('llm-planning', 'LLM planning', undefined)).tenant.id;
    const assets = ctx.get(AssetRegistryService);
    const actor = { tenantId, userId: 'tester' };
    for (const [asset_type, name, spec] of [
      ['catalog', PLANNER_ASSET_NAMES.catalog, { content: OPS_CATALOG }],
      ['mapping', PLANNER_ASSET_NAMES.mappings, { content: OPS_KEYWORD_MAPPINGS }],
      [
        'prompt',
        PLANNER_ASSET_NAMES.prompt,
        { scope: 'planner', engine: 'text', template: 'You are the ACME operations planner.' },
      ],
    ] as const) {
      const created = await assets.create(actor, { asset_type, name, spec });
      await assets.publish(actor, created.id);
    }
    executed = jest.spyOn(ctx.get(ToolRegistry), 'execute');
    planner = ctx.get(PlannerService);
  });
  afterAll(async () => {
    await ctx?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.reset();
    executed.mockClear();
  });

  it('uses a good plan from the model, asking for structured output with the plan schema', async () => {
    llm.enqueue(FakeLlmServer.json(GOOD_PLAN));
    const outcome = await plan();
    expect(outcome).toMatchObject({
      valid: true,
      planner: 'llm',
      model: 'fake-model',
      rejected: [],
      errors: [],
    });
    expect(outcome.plan?.steps.map((s) => s.tool_type)).toEqual(['ci_lookup', 'metric_query']);
    expect(outcome.asset_versions).toMatchObject({
      prompt: { name: 'planner', version: 1 },
      catalog: { name: 'ops', version: 1 },
      mappings: { name: 'ops-keywords', version: 1 },
    });
    expect(outcome.asset_versions.tools.map((t) => t.name)).toEqual(['ci_lookup', 'metric_query']);

    const [request] = llm.chatRequests;
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.body.model).toBe('fake-model');
    expect(request.body.response_format.type).toBe('json_schema');
    expect(
      request.body.response_format.json_schema.schema.properties.steps.items.properties.tool_type.enum,
    ).toEqual(expect.arrayContaining(['ci_lookup', 'metric_query', 'graph_analysis']));
    expect(request.body.messages[0].content).toBe('You are the ACME operations planner.');
    expect(request.body.messages[1].content).toContain(SEED_QUERY);
    expect(request.body.messages[1].content).toContain('values: prod|staging|dev');
  });

  it('honours a per-request model override', async () => {
    llm.enqueue(FakeLlmServer.json(GOOD_PLAN));
    const outcome = await plan('fake-model-large');
    expect(llm.chatRequests[0].body.model).toBe('fake-model-large');
    expect(outcome.model).toBe('fake-model-large');
  });

  it('accepts the plan as tool-call arguments too', async () => {
    llm.enqueue(FakeLlmServer.toolCall('submit_plan', GOOD_PLAN));
    expect(await plan()).toMatchObject({ valid: true, planner: 'llm' });
  });

  it('malformed JSON: sends the parse error back once, then uses the repaired plan', async () => {
    llm.enqueue(FakeLlmServer.text('{"intent": "QueryMetrics", "steps": [ {'), FakeLlmServer.json(GOOD_PLAN));
    const outcome = await plan();
    expect(outcome).toMatchObject({ valid: true, planner: 'llm_repair' });
    expect(outcome.rejected).toEqual([
      expect.objectContaining({ source: 'llm', reason: 'malformed_output' }),
    ]);
    const repair = llm.chatRequests[1].body.messages;
    expect(repair.at(-2)).toMatchObject({
      role: 'assistant',
      content: '{"intent": "QueryMetrics", "steps": [ {',
    });
    expect(repair.at(-1).content).toContain('MALFORMED_PLAN');
  });

  it('malformed twice: falls back to the deterministic planner', async () => {
    llm.enqueue(FakeLlmServer.text('not json'), FakeLlmServer.text('```json\n{oops}\n```'));
    const outcome = await plan();
    expect(outcome).toMatchObject({ valid: true, planner: 'fallback', model: null });
    expect(outcome.rejected.map((r) => [r.source, r.reason])).toEqual([
      ['llm', 'malformed_output'],
      ['llm_repair', 'malformed_output'],
    ]);
    // The deterministic planner filters the metric query itself (ci_filter): no lookup step first.
    expect(outcome.plan?.steps.map((s) => s.tool_type)).toEqual(['metric_query']);
  });

  it('an unknown tool is rejected, repaired; if still unknown the fallback plans and nothing invalid runs', async () => {
    const bad = { intent: 'x', steps: [{ id: 's1', tool_type: 'run_sql', parameters: { sql: 'select 1' } }] };
    llm.enqueue(FakeLlmServer.json(bad), FakeLlmServer.json(GOOD_PLAN));
    const repaired = await plan();
    expect(repaired).toMatchObject({ planner: 'llm_repair', valid: true });
    expect(repaired.rejected[0].errors[0]).toMatchObject({ code: 'UNKNOWN_TOOL', step_id: 's1' });
    expect(llm.chatRequests[1].body.messages.at(-1).content).toContain('UNKNOWN_TOOL');

    llm.reset();
    llm.enqueue(FakeLlmServer.json(bad), FakeLlmServer.json(bad), FakeLlmServer.text('Top 5 servers: ...'));
    const asked = await ask();
    expect(asked.planning.planner).toBe('fallback');
    expect(asked.planning.rejected).toHaveLength(2);
    expect(asked.execution?.steps.map((s) => s.tool_type)).toEqual(['metric_query']);
    expect(calls()).toBe(1);
  });

  it('wrong parameter types are rejected with their paths and repaired', async () => {
    const wrong = structuredClone(GOOD_PLAN) as any;
    wrong.steps[1].parameters.top_n = 'five';
    wrong.steps[0].parameters.filters = { environment: 'production' };
    llm.enqueue(FakeLlmServer.json(wrong), FakeLlmServer.json(GOOD_PLAN));
    const outcome = await plan();
    expect(outcome.planner).toBe('llm_repair');
    expect(outcome.rejected[0].errors.map((e) => [e.code, e.path])).toEqual(
      expect.arrayContaining([
        ['INVALID_PARAMETERS', '/parameters/top_n'],
        ['INVALID_FILTER_VALUE', '/parameters/filters/environment'],
      ]),
    );
  });

  it('a timeout is retried, then the fallback plans', async () => {
    llm.setDefault(FakeLlmServer.delayed(2000, FakeLlmServer.json(GOOD_PLAN)));
    const outcome = await plan();
    expect(outcome).toMatchObject({ valid: true, planner: 'fallback' });
    expect(outcome.rejected).toEqual([
      expect.objectContaining({
        source: 'llm',
        reason: 'llm_error',
        message: expect.stringMatching(/within 400 ms/),
      }),
    ]);
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('a 500 is retried; a recovery is used, a persistent 500 ends in the fallback', async () => {
    llm.enqueue(FakeLlmServer.error(500), FakeLlmServer.json(GOOD_PLAN));
    expect(await plan()).toMatchObject({ planner: 'llm', valid: true });
    expect(llm.chatRequests).toHaveLength(2);

    llm.reset();
    llm.setDefault(FakeLlmServer.error(503));
    const outcome = await plan();
    expect(outcome).toMatchObject({ planner: 'fallback', valid: true });
    expect(outcome.rejected[0].message).toMatch(/503/);
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('a 400 from the endpoint is not retried', async () => {
    llm.setDefault(FakeLlmServer.error(400));
    expect(await plan()).toMatchObject({ planner: 'fallback' });
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('a broken HTTP body is treated like a failed call', async () => {
    llm.setDefault({ rawBody: '{"choices": [' });
    expect(await plan()).toMatchObject({ planner: 'fallback', valid: true });
  });

  it('/ask with the LLM: executes the plan and lets the model write the answer', async () => {
    llm.enqueue(FakeLlmServer.json(GOOD_PLAN), (request) => {
      const results = request.body.messages[1].content as string;
      return FakeLlmServer.text(
        results.includes('metric_query') ? 'No prod server reported CPU.' : 'no data',
      );
    });
    const result = await ask();
    expect(result).toMatchObject({ status: 'no_data', answer_source: 'llm', model: 'fake-model' });
    // This tenant has no OPS data: the model's answer comes after the plain statement of why it is empty.
    expect(result.answer).toMatch(
      /^This tenant has no OPS data loaded yet[^]*\n\nNo prod server reported CPU\.$/,
    );
    expect(result.warnings).toContain(NO_OPS_DATA_WARNING);
    expect(result.execution?.steps.every((s) => s.status === 'succeeded')).toBe(true);
  });

  it('/ask: when the answer call fails the template answers and a warning says why', async () => {
    llm.enqueue(FakeLlmServer.json(GOOD_PLAN));
    llm.setDefault(FakeLlmServer.error(500));
    const result = await ask();
    expect(result.answer_source).toBe('template');
    expect(result.answer).toMatch(/cpu_usage.*avg/);
    expect(result.warnings.join(' ')).toMatch(/template because the model failed/);
  });

  it('reports the llm health check through the models endpoint', async () => {
    const report = await ctx.get(HealthRegistry).report();
    expect(report.checks.llm).toMatchObject({ status: 'ok', model: 'fake-model' });
  });
});
