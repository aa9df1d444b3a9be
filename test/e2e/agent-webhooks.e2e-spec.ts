import { createHmac, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BlogToolsPublisher } from '@app/assistant';
import { runAsSystem } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import { sleep, startTestApp, startTestReplica, TestApp, testBackend } from '@test/support';
import { RecordedRequest, sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const BLOG_KEY = 'blog-service-key-0123456789';
const SIGNING_SECRET = 'whsec_receiver_shared_secret_42';
const ROUTE = '/internal/v1/llm/execute';
const ARTICLE = { title: 'K8s 1.31 upgrade notes', markdown: '# Notes\n- drained nodes', tags: ['k8s'] };
const PROMPT = '이 글을 블로그에 올려줘';

/** What a receiver does: recompute HMAC-SHA256 over "<t>.<raw body>" with the shared secret. */
function verified(request: RecordedRequest): boolean {
  const header = String(request.headers['x-ops-signature'] ?? '');
  const fields = new Map(header.split(',').map((part) => part.split('=') as [string, string]));
  const timestamp = Number(fields.get('t'));
  const expected = createHmac('sha256', SIGNING_SECRET).update(`${timestamp}.${request.body}`).digest('hex');
  // The receiver's replay window: the timestamp is this attempt's, not the event's.
  return fields.get('v1') === expected && Math.abs(Date.now() / 1000 - timestamp) < 600;
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  seconds = 30,
): Promise<T> {
  for (let i = 0; i < seconds * 20; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe(`agent run webhooks: signed, retried, stored on the run (${testBackend()})`, () => {
  let t: TestApp;
  let replica: Pick<TestApp, 'request' | 'close'> | undefined;
  let blog: StandInServer;
  let receiver: StandInServer;
  let unlisted: StandInServer;
  let service: string;
  let operator: string;
  let admin: string;
  /** Statuses the receiver answers with, in order; then 200. */
  const answers: number[] = [];

  const hooks = (runId: string) => receiver.requests.filter((r) => JSON.parse(r.body).data?.run_id === runId);
  const execute = (app: Pick<TestApp, 'request'>, body: Record<string, unknown>) =>
    app.request('POST', ROUTE, { key: service, body });
  const getRun = async (runId: string) =>
    (await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service })).body;

  beforeAll(async () => {
    blog = await startStandIn((req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
      return sendJson(res, 201, { article_id: 77, url: 'https://blog.example/p/77' });
    });
    receiver = await startStandIn((_req, res) => {
      const status = answers.shift() ?? 200;
      sendJson(res, status, status < 300 ? { received: true } : { error: 'receiver down' });
    });
    unlisted = await startStandIn((_req, res) => sendJson(res, 200, {}));
    t = await startTestApp({
      // No LLM: the fallback picks post_blog_article for the seed's publish prompt.
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blog.port},127.0.0.1:${receiver.port}`,
      OPS_SECRET_BLOG_API_KEY: BLOG_KEY,
      SECRET_ENV_GRANTS: 'hookco:OPS_SECRET_BLOG_API_KEY',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_RETRY_CHECK_SECONDS: '1',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'hookco' } });
    const tenantId: string = created.body.tenant.id;
    admin = created.body.secret;
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: role, role } })).body
        .secret as string;
    [service, operator] = [await key('service'), await key('operator')];
    await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && !registry.has(tenantId, 'post_blog_article'); i++) await sleep(20);
  });
  afterAll(async () => {
    await replica?.close();
    await t?.close();
    await blog?.close();
    await receiver?.close();
    await unlisted?.close();
  });
  beforeEach(() => {
    answers.length = 0;
  });

  it('refuses a callback URL before running anything: no signing secret, an internal address, not http', async () => {
    const hook = `${receiver.url}/hooks/runs`;
    const missing = await execute(t, { user_id: 'refused', prompt: PROMPT, callback_url: hook });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: 'WEBHOOK_SECRET_MISSING',
      message: expect.stringContaining('PUT /api/secrets/WEBHOOK_SIGNING_SECRET'),
      requestId: expect.any(String),
    });
    const stored = await t.request('PUT', '/api/secrets/WEBHOOK_SIGNING_SECRET', {
      key: admin,
      body: { value: SIGNING_SECRET },
    });
    expect(stored.status).toBe(200);

    for (const [url, reason] of [
      [`${unlisted.url}/hook`, 'loopback'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://10.1.2.3:8080/hook', 'private'],
    ]) {
      const refused = await execute(t, { user_id: 'refused', prompt: PROMPT, callback_url: url });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: 'CALLBACK_URL_REFUSED',
        details: { field: 'callback_url', code: 'ADDRESS_BLOCKED', reason },
        requestId: expect.any(String),
      });
    }
    const credentials = await execute(t, {
      user_id: 'refused',
      prompt: PROMPT,
      callback_url: `http://user:pw@127.0.0.1:${receiver.port}/hook`,
    });
    expect(credentials.body).toMatchObject({
      error: 'CALLBACK_URL_REFUSED',
      details: { code: 'URL_NOT_ALLOWED' },
    });
    const notHttp = await execute(t, {
      user_id: 'refused',
      prompt: PROMPT,
      callback_url: 'ftp://example.com/x',
    });
    expect(notHttp.status).toBe(400);
    expect(notHttp.body.error).toBe('VALIDATION_FAILED');
    // Nothing ran: no run, no pending action, nothing sent to either server.
    const runs = await t.request('GET', '/internal/v1/llm/runs?user_id=refused', { key: service });
    expect(runs.body.total).toBe(0);
    expect(unlisted.requests).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
    expect(blog.requests).toHaveLength(0);
  });

  it('paused -> signed run.awaiting_confirmation; confirmed (the pausing replica gone) -> run.completed from the one that resumed it', async () => {
    // On native the run starts on a second replica that is closed before the confirmation, so the
    // completed event can only come from the process that resumed the run (PGlite serves one process).
    replica = testBackend() === 'native' ? await startTestReplica(t) : undefined;
    const starter = replica ?? t;
    const hook = `${receiver.url}/hooks/runs?source=ops`;
    const res = await execute(starter, {
      user_id: 'u-7',
      prompt: PROMPT,
      context: ARTICLE,
      callback_url: hook,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'awaiting_confirmation', mode: 'fallback' });
    const runId: string = res.body.run_id;
    const held = res.body.tool_calls.find((call: any) => call.tool === 'post_blog_article');
    const actionId: string = held.pending_action.action_id;

    const paused = await waitFor('the paused event', () => hooks(runId)[0]);
    expect(paused).toMatchObject({ method: 'POST', path: '/hooks/runs?source=ops' });
    expect(paused.headers).toMatchObject({
      'content-type': 'application/json',
      'x-ops-event': 'run.awaiting_confirmation',
      'x-ops-delivery': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(verified(paused)).toBe(true);
    expect(JSON.parse(paused.body)).toEqual({
      id: paused.headers['x-ops-delivery'],
      type: 'run.awaiting_confirmation',
      created_at: expect.any(String),
      tenant_id: expect.any(String),
      data: expect.objectContaining({
        run_id: runId,
        status: 'awaiting_confirmation',
        user_id: 'u-7',
        caller: 'api',
        key_id: expect.any(String),
        request_id: res.headers.get('x-request-id'),
        final_response: res.body.final_response,
        pending_actions: [
          expect.objectContaining({
            action_id: actionId,
            tool: 'post_blog_article',
            input: expect.objectContaining({ title: ARTICLE.title }),
          }),
        ],
      }),
    });
    // The pausing replica recorded the delivery (a close mid-attempt would send it again: at least once).
    await waitFor('the paused delivery recorded', async () =>
      (await getRun(runId)).webhook_deliveries[0]?.status === 'delivered' ? true : undefined,
    );
    await replica?.close();
    replica = undefined;

    const confirmed = await t.request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.run).toMatchObject({ run_id: runId, status: 'completed' });
    const completed = await waitFor('the completed event', () =>
      hooks(runId).find((r) => r.headers['x-ops-event'] === 'run.completed'),
    );
    expect(verified(completed)).toBe(true);
    const event = JSON.parse(completed.body);
    expect(event.id).not.toBe(JSON.parse(paused.body).id);
    expect(event.data).toMatchObject({
      run_id: runId,
      status: 'completed',
      pending_actions: [],
      tool_calls: expect.arrayContaining([
        expect.objectContaining({ tool: 'post_blog_article', success: true, decision: 'confirmed' }),
      ]),
    });
    expect(event.data.final_response).toBe(confirmed.body.run.final_response);
    expect(event.data.final_response).toContain(ARTICLE.title);
    expect(event.data.final_response).toContain('https://blog.example/p/77');

    // Both deliveries are on the run, delivered at the first attempt.
    const run = await waitFor('both deliveries recorded', async () => {
      const stored = await getRun(runId);
      return stored.webhook_deliveries.every((d: any) => d.status === 'delivered') &&
        stored.webhook_deliveries.length === 2
        ? stored
        : undefined;
    });
    expect(run.callback_url).toBe(hook);
    expect(run.webhook_deliveries).toEqual([
      expect.objectContaining({
        delivery_id: JSON.parse(paused.body).id,
        event: 'run.awaiting_confirmation',
        attempt_count: 1,
        attempts: [
          expect.objectContaining({ attempt: 1, status_code: 200, error: null, outcome: 'delivered' }),
        ],
        next_attempt_at: null,
        delivered_at: expect.any(String),
      }),
      expect.objectContaining({ delivery_id: event.id, event: 'run.completed', status: 'delivered' }),
    ]);
  });

  it('a 500 is retried with backoff: the same delivery, freshly signed, until the receiver takes it', async () => {
    answers.push(500, 503);
    const res = await execute(t, {
      user_id: 'u-8',
      prompt: PROMPT,
      context: ARTICLE,
      callback_url: receiver.url,
    });
    expect(res.body.status).toBe('awaiting_confirmation');
    const runId: string = res.body.run_id;
    const attempts = await waitFor('the third attempt', () =>
      hooks(runId).length >= 3 ? hooks(runId) : undefined,
    );
    expect(attempts).toHaveLength(3);
    // One delivery id and one body on every attempt; each attempt signed (and verifiable) on its own.
    expect(new Set(attempts.map((a) => a.headers['x-ops-delivery'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(attempts.every(verified)).toBe(true);
    const run = await waitFor('the delivery recorded', async () => {
      const stored = await getRun(runId);
      return stored.webhook_deliveries[0]?.status === 'delivered' ? stored : undefined;
    });
    const [delivery] = run.webhook_deliveries;
    expect(delivery).toMatchObject({ event: 'run.awaiting_confirmation', attempt_count: 3 });
    expect(delivery.attempts.map((a: any) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [1, 500, 'retry'],
      [2, 503, 'retry'],
      [3, 200, 'delivered'],
    ]);
    expect(delivery.attempts[0]).toMatchObject({
      error: 'the receiver answered 500',
      response_excerpt: expect.stringContaining('receiver down'),
    });
    // Backoff: the second retry waited longer than the first (WEBHOOK_RETRY_BASE_SECONDS doubling).
    const at = delivery.attempts.map((a: any) => Date.parse(a.at));
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1000);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(2000);
  });

  it('a 4xx answer is final: the delivery fails after one attempt and is not retried', async () => {
    answers.push(410);
    const res = await execute(t, {
      user_id: 'u-9',
      prompt: PROMPT,
      context: ARTICLE,
      callback_url: receiver.url,
    });
    const runId: string = res.body.run_id;
    const run = await waitFor('the delivery failed', async () => {
      const stored = await getRun(runId);
      return stored.webhook_deliveries[0]?.status === 'failed' ? stored : undefined;
    });
    expect(run.webhook_deliveries[0]).toMatchObject({
      attempt_count: 1,
      next_attempt_at: null,
      delivered_at: null,
      attempts: [expect.objectContaining({ status_code: 410, outcome: 'failed' })],
    });
    expect(hooks(runId)).toHaveLength(1);
  });

  it('a delivery a dead process left sending is sent again by the scheduler after the lease (at least once)', async () => {
    const res = await execute(t, {
      user_id: 'u-10',
      prompt: PROMPT,
      context: ARTICLE,
      callback_url: receiver.url,
    });
    const runId: string = res.body.run_id;
    const first = await waitFor('the first delivery', () => hooks(runId)[0]);
    await waitFor('the delivery recorded', async () =>
      (await getRun(runId)).webhook_deliveries[0]?.status === 'delivered' ? true : undefined,
    );
    // What a process that died mid-attempt leaves: claimed long ago, never recorded.
    await runAsSystem('test: a process died while delivering', () =>
      t.app
        .get(DataSource)
        .query(
          `UPDATE agent_run_deliveries SET status = 'delivering', claimed_at = now() - interval '1 hour' WHERE run_id = $1`,
          [runId],
        ),
    );
    const again = await waitFor('the delivery sent again', () => hooks(runId)[1]);
    expect(again.headers['x-ops-delivery']).toBe(first.headers['x-ops-delivery']);
    expect(again.body).toBe(first.body);
    expect(verified(again)).toBe(true);
    const run = await waitFor('the second attempt recorded', async () => {
      const stored = await getRun(runId);
      return stored.webhook_deliveries[0]?.attempt_count === 2 ? stored : undefined;
    });
    expect(run.webhook_deliveries[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
  });
});
