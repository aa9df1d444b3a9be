import { AuthService } from '@app/platform';
import { Tool, ToolContext, ToolDefinition, ToolOutput, ToolRegistry } from '@app/tools';
import { sleep, startTestApp, TestApp, testBackend } from '@test/support';

class TestTool implements Tool {
  readonly definition: ToolDefinition;
  constructor(
    name: string,
    private readonly run: (ctx: ToolContext, input: Record<string, unknown>) => Promise<ToolOutput>,
    timeoutMs = 5000,
  ) {
    this.definition = {
      name,
      description: `test tool ${name}`,
      kind: 'test',
      input_schema: { type: 'object' },
      output_schema: null,
      has_side_effects: false,
      timeout_ms: timeoutMs,
      source: 'dynamic',
    };
  }
  execute(ctx: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    return this.run(ctx, input);
  }
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });

describe(`OPS tools and stages over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let operator: string;
  let reader: string;
  let otherAdmin: string;
  let cancelled = false;

  beforeAll(async () => {
    t = await startTestApp({ STAGE_MAX_CONCURRENCY: '3' });
    operator = (await t.request('POST', '/api/keys', { body: { name: 'op', role: 'operator' } })).body.secret;
    reader = (await t.request('POST', '/api/keys', { body: { name: 'ro', role: 'reader' } })).body.secret;
    otherAdmin = (await t.request('POST', '/api/tenants', { body: { slug: 'tenant-b' } })).body.secret;
    const tenantId = (await t.app.get(AuthService).getTenant('default')).id;
    const registry = t.app.get(ToolRegistry);
    for (const name of ['nap_a', 'nap_b', 'nap_c', 'nap_d']) {
      registry.setDynamicTool(
        tenantId,
        new TestTool(name, async (ctx) => {
          await wait(300, ctx.signal);
          return { data: { name } };
        }),
      );
    }
    registry.setDynamicTool(
      tenantId,
      new TestTool(
        'slow',
        async (ctx) => {
          await wait(5000, ctx.signal);
          return { data: {} };
        },
        300,
      ),
    );
    registry.setDynamicTool(
      tenantId,
      new TestTool('hang', async (ctx) => {
        ctx.signal.addEventListener('abort', () => (cancelled = true));
        await wait(4000, ctx.signal);
        return { data: {} };
      }),
    );
    registry.setDynamicTool(
      tenantId,
      new TestTool('echo', (_ctx, input) => Promise.resolve({ data: input })),
    );
  });
  afterAll(() => t.close());

  const stage = (tools: unknown[], key = operator, extra: Record<string, unknown> = {}) =>
    t.request('POST', '/ops/stage/execute', { key, body: { stage_name: 'test', tools, ...extra } });

  it('lists built-in and the tenant own tools to readers; other tenants do not see them', async () => {
    const mine = await t.request('GET', '/ops/tools', { key: reader });
    expect(mine.status).toBe(200);
    const names = mine.body.tools.map((tool: { name: string }) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['ci_lookup', 'metric_query', 'history_query', 'graph_analysis', 'nap_a']),
    );
    const ci = mine.body.tools.find((tool: { name: string }) => tool.name === 'ci_lookup');
    expect(ci).toMatchObject({
      source: 'builtin',
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
    });

    const theirs = await t.request('GET', '/ops/tools', { key: otherAdmin });
    expect(theirs.body.tools.map((tool: { name: string }) => tool.name)).not.toContain('nap_a');
    expect((await t.request('POST', '/ops/tools/nap_a/execute', { key: otherAdmin, body: {} })).status).toBe(
      404,
    );
  });

  it('executes one tool for operators: 400 on invalid input, 404 unknown, 403 for readers', async () => {
    expect((await t.request('POST', '/ops/tools/ci_lookup/execute', { key: reader, body: {} })).status).toBe(
      403,
    );
    const bad = await t.request('POST', '/ops/tools/ci_lookup/execute', {
      key: operator,
      body: { input: { limit: 'ten' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'TOOL_INPUT_INVALID',
      details: { issues: [{ path: '/limit' }] },
      requestId: expect.any(String),
    });
    expect((await t.request('POST', '/ops/tools/nope/execute', { key: operator, body: {} })).status).toBe(
      404,
    );
    const ok = await t.request('POST', '/ops/tools/ci_lookup/execute', {
      key: operator,
      body: { input: { keywords: ['payment'] } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      success: true,
      data: { items: [], count: 0, total: 0 },
      metadata: { tool: 'ci_lookup' },
    });
  });

  it('runs three independent 300 ms tools in about one tool time, not three', async () => {
    const res = await stage([{ tool_name: 'nap_a' }, { tool_name: 'nap_b' }, { tool_name: 'nap_c' }]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.duration_ms).toBeLessThan(750);
    const starts = res.body.results.map((r: { started_at_ms: number }) => r.started_at_ms);
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(150);
  });

  it('holds fan-out to STAGE_MAX_CONCURRENCY', async () => {
    const res = await stage(['nap_a', 'nap_b', 'nap_c', 'nap_d'].map((tool_name) => ({ tool_name })));
    expect(res.body.status).toBe('ok');
    expect(res.body.duration_ms).toBeGreaterThanOrEqual(590);
  });

  it('times a slow tool out while the others succeed: partial', async () => {
    const res = await stage([{ tool_name: 'nap_a' }, { tool_name: 'slow' }, { tool_name: 'nap_b' }]);
    expect(res.body.status).toBe('partial');
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual([
      'succeeded',
      'failed',
      'succeeded',
    ]);
    expect(res.body.results[1].result).toMatchObject({ success: false, error_details: { code: 'TIMEOUT' } });
    expect(res.body.summary).toEqual({ total: 3, succeeded: 2, failed: 1 });
  });

  it('passes values between steps by reference, and skips steps whose dependency failed', async () => {
    const res = await stage([
      { id: 'first', tool_name: 'echo', input: { items: [{ id: 'a' }, { id: 'b' }] } },
      { id: 'second', tool_name: 'echo', input: { ids: { $ref: 'first.data.items[*].id' }, n: 1 } },
      { id: 'broken', tool_name: 'slow' },
      { id: 'after', tool_name: 'echo', depends_on: ['broken'] },
      { id: 'missing', tool_name: 'echo', input: { x: { $ref: 'first.data.nothing' } } },
    ]);
    expect(res.body.status).toBe('partial');
    const byId = Object.fromEntries(res.body.results.map((r: { id: string }) => [r.id, r]));
    expect(byId.second.result.data).toEqual({ ids: ['a', 'b'], n: 1 });
    expect(byId.after).toMatchObject({
      status: 'skipped',
      result: { error_details: { code: 'DEPENDENCY_FAILED' } },
    });
    expect(byId.missing).toMatchObject({
      status: 'failed',
      result: { error_details: { code: 'REFERENCE_UNRESOLVED' } },
    });

    const stored = await t.request('GET', `/ops/stage/runs/${res.body.run_id}`, { key: reader });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ run_id: res.body.run_id, status: 'partial', stage_name: 'test' });
    expect(stored.body.results).toHaveLength(5);
    expect((await t.request('GET', `/ops/stage/runs/${res.body.run_id}`, { key: otherAdmin })).status).toBe(
      404,
    );
    expect((await t.request('GET', '/ops/stage/runs/not-a-uuid', { key: reader })).status).toBe(404);
  });

  it('refuses an invalid stage before running anything', async () => {
    const cases: Array<[unknown[], string]> = [
      [
        [{ tool_name: 'echo', input: { x: { $ref: 'step2.data' } } }, { tool_name: 'echo' }],
        'forward_reference',
      ],
      [[{ tool_name: 'echo', depends_on: ['ghost'] }], 'unknown_step'],
      [[{ id: 'me', tool_name: 'echo', input: { x: { $ref: 'me.data' } } }], 'cycle'],
      [[{ tool_name: 'no_such_tool' }], 'unknown_tool'],
    ];
    for (const [tools, problem] of cases) {
      const res = await stage(tools);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'STAGE_INVALID', details: { problems: [{ problem }] } });
    }
    expect((await stage([{ tool_name: 'echo' }], reader)).status).toBe(403);
    expect(
      (await t.request('POST', '/ops/stage/execute', { key: operator, body: { stage_name: 'x', tools: [] } }))
        .status,
    ).toBe(400);
  });

  it('cancels running tools when the client goes away', async () => {
    const controller = new AbortController();
    const pending = fetch(`${t.url}/ops/stage/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stage_name: 'cancel', tools: [{ tool_name: 'hang' }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    await sleep(300);
    controller.abort();
    await pending;
    for (let i = 0; i < 40 && !cancelled; i++) await sleep(50);
    expect(cancelled).toBe(true);
  });

  it('reports the demo data state (not loaded here) without affecting readiness', async () => {
    expect((await t.request('GET', '/ops/demo/status', { key: reader })).body).toMatchObject({
      state: 'not_loaded',
    });
    const ready = await t.request('GET', '/health/ready', { key: null });
    expect(ready.body.status).toBe('ok');
    expect(ready.body.checks.demo_data).toMatchObject({ status: 'disabled' });
  });
});
