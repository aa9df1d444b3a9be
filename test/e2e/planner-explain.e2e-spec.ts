import { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { PLANNER_ASSET_NAMES } from '@app/planner';
import { FakeLlmServer, planWhenTrained, sleep, startTestApp, TestApp, testBackend } from '@test/support';

const NOW = '2026-11-22T09:00:00Z';
const OPS_QUESTION = 'Which prod servers had the highest CPU usage last week? top 5';
const GOOD_PLAN = {
  intent: 'QueryMetrics',
  steps: [
    {
      id: 's1',
      tool_type: 'metric_query',
      parameters: {
        metric_name: 'cpu_usage',
        agg: 'avg',
        time_range: { start: '2026-11-09T00:00:00Z', end: '2026-11-16T00:00:00Z' },
        ci_filter: { environment: 'prod' },
        top_n: 5,
      },
    },
  ],
};

/** A tool of another business, published with hints (the README's HR example). */
const LEAVE_TOOL = {
  asset_type: 'tool',
  name: 'leave_balance',
  description: '직원 휴가 잔여일수 조회 / remaining leave days of an employee',
  tool_type: 'http',
  tool_config: {
    method: 'GET',
    url: 'https://hr.example.com/api/leave',
    query: { employee: '{{input.employee}}' },
  },
  tool_input_schema: {
    type: 'object',
    properties: { employee: { type: 'string', description: 'Employee name or id' } },
    required: ['employee'],
  },
  planning_hints: {
    examples: { ko: ['연차 며칠 남았어?'], en: ['how many leave days do I have left'] },
    keywords: { ko: ['연차', '휴가'], en: ['leave days', 'PTO'] },
  },
};

/**
 * Issue 26: an admin sees why a plan was chosen (`explain: true` on /ops/plan and /ops/ask), and every plan
 * and stored run names the knowledge version it was made with. On the demo knowledge (the OPS catalog and
 * mappings as the demo publishes them) and on a tenant that published its own tool with hints; the LLM
 * planner against the OpenAI-compatible test server.
 */
describe(`plan explanations and knowledge versions (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let hrKey: string;

  const publish = async (body: Record<string, unknown>, key?: string) => {
    const created = await t.request('POST', '/api/assets', { key, body });
    expect(created.status).toBe(201);
    const published = await t.request('POST', `/api/assets/${created.body.id}/publish`, { key });
    expect(published.status).toBe(200);
    return created.body.id as string;
  };
  const planTrained = (body: Record<string, unknown>, key?: string) => planWhenTrained(t, body, key);

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    t = await startTestApp({
      DEMO_DATA: 'off',
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '1',
      LLM_RETRY_BASE_DELAY_MS: '10',
    });
    await publish({ asset_type: 'catalog', name: PLANNER_ASSET_NAMES.catalog, content: OPS_CATALOG });
    await publish({
      asset_type: 'mapping',
      name: PLANNER_ASSET_NAMES.mappings,
      content: OPS_KEYWORD_MAPPINGS,
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'hr-team' } });
    hrKey = created.body.secret;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });
  beforeEach(() => llm.reset());

  it('explains a fallback plan on the demo knowledge: planner, knowledge, evidence, threshold, parameter sources', async () => {
    const res = await planTrained({ query: OPS_QUESTION, now: NOW, use_llm: false });
    const { explain } = res.body;
    expect(explain.classifier).toBe('ready');
    expect(explain.planner).toMatchObject({ source: 'fallback', reason: 'llm_not_requested' });
    expect(res.body.knowledge_version).toMatch(/^kv1-[0-9a-f]{16}$/);
    expect(explain.knowledge.version).toBe(res.body.knowledge_version);
    expect(explain.knowledge.mappings).toMatchObject({ name: PLANNER_ASSET_NAMES.mappings, version: 1 });
    expect(explain.knowledge.mappings.labelled_examples).toBeGreaterThan(100);
    expect(explain.knowledge.catalogs).toEqual(
      expect.arrayContaining([
        { source: 'internal', catalog: { name: PLANNER_ASSET_NAMES.catalog, version: 1 } },
      ]),
    );

    const steps = res.body.plan.steps.map((s: { tool_type: string }) => s.tool_type);
    expect(steps).toContain('metric_query');
    const metric = explain.tools.find((tool: { tool: string }) => tool.tool === 'metric_query');
    expect(metric).toMatchObject({ chosen: true, scored_by: 'classifier' });
    expect(metric.decision).toMatch(/^chosen/);
    expect(metric.score).toBeGreaterThanOrEqual(metric.bar);
    const sources = metric.evidence.map((e: { source: string }) => e.source);
    expect(sources).toContain('classifier');
    expect(sources.some((s: string) => ['mapping_keyword', 'catalog_value', 'description'].includes(s))).toBe(
      true,
    );
    // Tools not chosen say why (below the bar, or a rule kept the others).
    for (const tool of explain.tools.filter((x: { chosen: boolean }) => !x.chosen))
      expect(tool.decision).toMatch(/^left out/);
    expect(explain.thresholds).toMatchObject({ tool: 0.5, evidence: 0.3 });

    // Each parameter with where it came from: "prod" is a catalog value (or a mapped keyword), "5" the question's.
    const param = (name: string) =>
      explain.parameters.find(
        (p: { tool: string; name: string }) => p.tool === 'metric_query' && p.name === name,
      );
    expect(['catalog_value', 'mapping_keyword']).toContain(param('ci_filter.environment')?.source);
    expect(param('top_n')).toMatchObject({ value: 5, source: 'number' });
    expect(param('time_range')).toMatchObject({ source: 'time_expression' });
    expect(explain.llm).toBeNull();

    // Not asked: no explanation, but the knowledge version is there.
    const plain = await t.request('POST', '/ops/plan', {
      body: { query: OPS_QUESTION, now: NOW, use_llm: false },
    });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('explain');
    expect(plain.body.knowledge_version).toBe(res.body.knowledge_version);
  }, 120_000);

  it("names the tenant's own hint that matched, and a publish gives a new knowledge version", async () => {
    const before = await t.request('POST', '/ops/plan', {
      key: hrKey,
      body: { query: '김민수 연차 며칠 남았어?', use_llm: false },
    });
    expect(before.status).toBe(200);
    await publish(LEAVE_TOOL, hrKey);
    for (let i = 0; i < 100; i++) {
      const tools = await t.request('GET', '/ops/tools', { key: hrKey });
      if (JSON.stringify(tools.body).includes('leave_balance')) break;
      await sleep(50);
    }
    const res = await planTrained({ query: '김민수 연차 며칠 남았어?', use_llm: false }, hrKey);
    expect(res.body.knowledge_version).not.toBe(before.body.knowledge_version);
    expect(res.body.plan.steps.map((s: { tool_type: string }) => s.tool_type)).toEqual(['leave_balance']);
    const leave = res.body.explain.tools.find((tool: { tool: string }) => tool.tool === 'leave_balance');
    expect(leave.chosen).toBe(true);
    expect(leave.evidence).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: 'hint_keyword', text: '연차' })]),
    );
    expect(res.body.explain.knowledge.tools).toEqual(
      expect.arrayContaining([
        {
          name: 'leave_balance',
          source_ref: null,
          version: 1,
          hints: { examples: 2, keywords: 4, not_for: 0 },
        },
      ]),
    );
    // The demo tenant's knowledge is another tenant's: its version is not this one.
    const ops = await t.request('POST', '/ops/plan', { body: { query: OPS_QUESTION, use_llm: false } });
    expect(ops.body.knowledge_version).not.toBe(res.body.knowledge_version);
  }, 120_000);

  it('explains an LLM plan: what was sent, what came back, the validation; and why the fallback planned when it failed', async () => {
    llm.enqueue(FakeLlmServer.json(GOOD_PLAN));
    const res = await t.request('POST', '/ops/plan', {
      body: { query: OPS_QUESTION, now: NOW, explain: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.planner).toBe('llm');
    const { explain } = res.body;
    expect(explain.planner).toMatchObject({ source: 'llm', reason: 'llm_plan_valid' });
    expect(explain.llm.prompt).toMatchObject({ source: 'builtin', name: 'default' });
    expect(explain.llm.tools_sent).toEqual(expect.arrayContaining(['metric_query', 'ci_lookup']));
    expect(explain.llm.attempts).toEqual([
      expect.objectContaining({ source: 'llm', outcome: 'valid', returned: JSON.stringify(GOOD_PLAN) }),
    ]);
    expect(explain.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'metric_name', value: 'cpu_usage', source: 'llm' }),
      ]),
    );
    // What the deterministic planner would have chosen, for comparison.
    expect(explain.fallback_choice).toContain('metric_query');

    llm.enqueue(FakeLlmServer.text('not json'), FakeLlmServer.text('still not json'));
    const rejected = await t.request('POST', '/ops/plan', {
      body: { query: OPS_QUESTION, now: NOW, explain: true },
    });
    expect(rejected.body.planner).toBe('fallback');
    expect(rejected.body.explain.planner).toMatchObject({ source: 'fallback', reason: 'llm_plan_rejected' });
    expect(rejected.body.explain.llm.attempts).toEqual([
      expect.objectContaining({ source: 'llm', outcome: 'malformed_output', returned: 'not json' }),
      expect.objectContaining({
        source: 'llm_repair',
        outcome: 'malformed_output',
        returned: 'still not json',
      }),
    ]);
  }, 60_000);

  it('/ops/ask explains when asked, and its stored run carries the knowledge version', async () => {
    const asked = await t.request('POST', '/ops/ask', {
      body: { query: OPS_QUESTION, now: NOW, use_llm: false, explain: true },
    });
    expect(asked.status).toBe(200);
    expect(asked.body.planning.explain.planner.reason).toBe('llm_not_requested');
    expect(asked.body.knowledge_version).toBe(asked.body.planning.knowledge_version);
    const runId = asked.body.execution.run_id;
    expect(runId).toEqual(expect.any(String));
    const run = await t.request('GET', `/ops/stage/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.body.origin).toEqual({ planner: 'fallback', knowledge_version: asked.body.knowledge_version });

    const plain = await t.request('POST', '/ops/ask', {
      body: { query: OPS_QUESTION, now: NOW, use_llm: false },
    });
    expect(plain.body.planning).not.toHaveProperty('explain');

    const invalid = await t.request('POST', '/ops/plan', { body: { query: OPS_QUESTION, explain: 'yes' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
  }, 60_000);
});
