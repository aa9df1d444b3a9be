import { AuthService } from '@app/platform';
import { Tool, ToolContext, ToolRegistry } from '@app/tools';
import { sleep, startTestApp, TestApp, testBackend } from '@test/support';

/** A tool that holds its slot until the test lets it go, and counts how many runs are inside it. */
class HeldTool implements Tool {
  running = 0;
  started = 0;
  private releaseAll!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.releaseAll = resolve));
  readonly definition = {
    name: 'heavy',
    description: 'a heavy tool',
    kind: 'test',
    input_schema: { type: 'object' },
    output_schema: null,
    has_side_effects: false,
    timeout_ms: 30_000,
    source: 'dynamic' as const,
  };

  async execute(_ctx: ToolContext) {
    this.running++;
    this.started++;
    await this.released;
    this.running--;
    return { data: { done: true } };
  }

  release(): void {
    this.releaseAll();
  }
}

describe(`per-tenant tool budget (${testBackend()})`, () => {
  let t: TestApp;
  let alphaOperator: string;
  let betaOperator: string;
  const heavy = new HeldTool();

  beforeAll(async () => {
    t = await startTestApp({ TOOL_MAX_CONCURRENT_PER_TENANT: '2', TOOL_QUEUE_WAIT_MS: '300' });
    const key = async (slug: string) => {
      const admin = (await t.request('POST', '/api/tenants', { body: { slug } })).body.secret;
      return (await t.request('POST', '/api/keys', { key: admin, body: { name: 'op', role: 'operator' } }))
        .body.secret as string;
    };
    alphaOperator = await key('alpha');
    betaOperator = await key('beta');
    const alphaId = (await t.app.get(AuthService).getTenant('alpha')).id;
    t.app.get(ToolRegistry).setDynamicTool(alphaId, heavy);
  });
  afterAll(async () => {
    heavy.release();
    await t?.close();
  });

  it("caps one tenant's concurrent tool runs (queued briefly, then 429 with Retry-After) while another tenant's search runs", async () => {
    let answered = 0;
    const calls = Array.from({ length: 10 }, () =>
      t.request('POST', '/ops/tools/heavy/execute', { key: alphaOperator, body: {} }).then((res) => {
        answered++;
        return res;
      }),
    );
    // The eight over the budget wait out the queue bound and are refused; the two inside keep running.
    for (let i = 0; i < 200 && answered < 8; i++) await sleep(25);
    expect(heavy.running).toBe(2);

    const search = await t.request('POST', '/ops/tools/ci_lookup/execute', {
      key: betaOperator,
      body: { input: { keywords: ['payment'] } },
    });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ success: true });

    heavy.release();
    const results = await Promise.all(calls);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 429, 429, 429, 429]);
    expect(heavy.started).toBe(2);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body).toMatchObject({ error: 'TOOLS_BUSY', requestId: expect.any(String) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The budget is free again once the runs finished.
    expect(
      (await t.request('POST', '/ops/tools/ci_lookup/execute', { key: alphaOperator, body: {} })).status,
    ).toBe(200);
  });
});
