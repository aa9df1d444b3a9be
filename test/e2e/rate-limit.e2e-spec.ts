import { startTestApp, TestApp, testBackend } from '@test/support';

describe(`per-key rate limits (${testBackend()})`, () => {
  let t: TestApp;
  let other: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_KEY: '5', RATE_LIMIT_WINDOW_SECONDS: '60' });
    other = (await t.request('POST', '/api/tenants', { body: { slug: 'other' } })).body.secret;
  });
  afterAll(() => t?.close());

  it('answers 429 with Retry-After and the standard error body past the limit, for that key only', async () => {
    const statuses: number[] = [];
    // The admin key already made one request (creating the tenant) in this window.
    for (let i = 0; i < 4; i++) statuses.push((await t.request('GET', '/api/keys')).status);
    expect(statuses).toEqual([200, 200, 200, 200]);

    const limited = await fetch(`${t.url}/api/keys`, { headers: { authorization: `Bearer ${t.adminKey}` } });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await limited.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'RATE_LIMITED', message: expect.any(String) });
    expect(body.requestId).toEqual(expect.any(String));

    expect((await t.request('GET', '/api/keys', { key: other })).status).toBe(200);
    expect((await t.request('GET', '/health/ready', { key: null })).status).toBe(200);
  });
});
