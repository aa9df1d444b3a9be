import { startTestApp, TestApp, testBackend } from '@test/support';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } },
};

describe(`MCP session budgets per tenant (${testBackend()})`, () => {
  let t: TestApp;
  let alphaKey: string;
  let betaKey: string;

  beforeAll(async () => {
    t = await startTestApp({ MCP_MAX_SESSIONS_PER_TENANT: '3', MCP_SESSION_IDLE_SECONDS: '2' });
    alphaKey = (await t.request('POST', '/api/tenants', { body: { slug: 'alpha' } })).body.secret;
    betaKey = (await t.request('POST', '/api/tenants', { body: { slug: 'beta' } })).body.secret;
  });
  afterAll(() => t?.close());

  async function open(
    key: string,
  ): Promise<{ status: number; sessionId: string | null; retryAfter: string | null }> {
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    await response.text();
    return {
      status: response.status,
      sessionId: response.headers.get('mcp-session-id'),
      retryAfter: response.headers.get('retry-after'),
    };
  }

  it('refuses a tenant over its cap with 429 and Retry-After while another tenant still opens one; idle sessions expire', async () => {
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push(await open(alphaKey));
    expect(opened.map((o) => o.status)).toEqual([200, 200, 200]);

    const over = await open(alphaKey);
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);

    expect((await open(betaKey)).status).toBe(200);

    // Idle sessions close after MCP_SESSION_IDLE_SECONDS: the tenant can open sessions again.
    let again = over;
    for (let i = 0; i < 100 && again.status === 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await open(alphaKey);
    }
    expect(again.status).toBe(200);
    const stale = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alphaKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': opened[0].sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
  });
});
