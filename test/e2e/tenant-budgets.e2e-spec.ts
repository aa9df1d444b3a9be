import { startTestApp, TestApp, testBackend } from '@test/support';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } },
};

/** What one key can take from the others of its tenant: MCP sessions, requests, and more keys. */
describe(`per-tenant budgets across keys (${testBackend()})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      MCP_MAX_SESSIONS_PER_TENANT: '4',
      MCP_MAX_SESSIONS_PER_KEY: '2',
      RATE_LIMIT_PER_TENANT: '12',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      API_KEYS_MAX_PER_TENANT: '3',
    });
  });
  afterAll(() => t?.close());

  /** A tenant of its own (its own request budget) with its admin key and `readers` reader keys. */
  async function tenantWithReaders(
    slug: string,
    readers: number,
  ): Promise<{ admin: string; keys: string[] }> {
    const admin = (await t.request('POST', '/api/tenants', { body: { slug } })).body.secret as string;
    const keys: string[] = [];
    for (let i = 0; i < readers; i++) {
      const created = await t.request('POST', '/api/keys', {
        key: admin,
        body: { name: `reader ${i}`, role: 'reader' },
      });
      expect(created.status).toBe(201);
      keys.push(created.body.secret as string);
    }
    return { admin, keys };
  }

  async function openMcp(key: string) {
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    const text = await response.text();
    return {
      status: response.status,
      sessionId: response.headers.get('mcp-session-id'),
      retryAfter: response.headers.get('retry-after'),
      text,
    };
  }

  it("holds one key to its share of the tenant's MCP sessions; the tenant's other keys still open theirs", async () => {
    const { keys } = await tenantWithReaders('mcp-share', 2);
    const [greedy, other] = keys;
    const mine = [await openMcp(greedy), await openMcp(greedy)];
    expect(mine.map((s) => s.status)).toEqual([200, 200]);

    const third = await openMcp(greedy);
    expect(third.status).toBe(429);
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(third.text).toMatch(/This API key has 2 open MCP sessions, its share of the tenant's 4/);

    expect((await openMcp(other)).status).toBe(200);

    // Closing one of its sessions gives the key its place back.
    const closed = await fetch(`${t.url}/mcp`, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${greedy}`,
        'mcp-session-id': mine[0].sessionId!,
        'mcp-protocol-version': '2025-03-26',
      },
    });
    expect(closed.status).toBe(200);
    expect((await openMcp(greedy)).status).toBe(200);
  });

  it("answers 429 with Retry-After once a tenant's keys together pass its budget, whatever each key's own count", async () => {
    // 1 + 2 requests (the tenant's creation counts for the system admin's tenant, the two keys for this one).
    const { keys } = await tenantWithReaders('busy', 2);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      const response = await fetch(`${t.url}/api/session`, {
        headers: { authorization: `Bearer ${keys[i % 2]}` },
      });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.text();
    }
    // 12 per tenant: 2 key creations + 10 reads, each key far under its own limit (5 reads each).
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited!.json()).toMatchObject({
      error: 'RATE_LIMITED',
      message: expect.stringMatching(/tenant's keys together made 12 requests/),
      requestId: expect.any(String),
    });

    // Another tenant's keys are not affected.
    expect((await t.request('GET', '/api/session')).status).toBe(200);
  });

  it('refuses a key past the tenant’s active-key cap with 409, and counts only active keys', async () => {
    const admin = (await t.request('POST', '/api/tenants', { body: { slug: 'many-keys' } })).body
      .secret as string;
    const create = (name: string) =>
      t.request('POST', '/api/keys', { key: admin, body: { name, role: 'reader' } });
    // The tenant's initial admin key is the first of its three.
    const first = await create('one');
    expect(first.status).toBe(201);
    expect((await create('two')).status).toBe(201);

    const refused = await create('three');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: 'API_KEY_LIMIT_REACHED',
      message: expect.stringMatching(/3 active API keys, its limit \(3\)/),
      details: { limit: 3, active: 3 },
    });
    // The system admin is held to the same cap.
    expect(
      (await t.request('POST', '/api/tenants/many-keys/keys', { body: { name: 'x', role: 'reader' } }))
        .status,
    ).toBe(409);

    expect((await t.request('DELETE', `/api/keys/${first.body.key.id}`, { key: admin })).status).toBe(200);
    expect((await create('three')).status).toBe(201);
  });
});
