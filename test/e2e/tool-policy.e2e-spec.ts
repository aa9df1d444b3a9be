import { sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const countQuery = { query: 'SELECT count(*)::int AS n FROM configuration_items' };

describe(`tool_access policy enforced by the tool registry (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let admin: string;
  let operator: string;
  let otherAdmin: string;
  let releaseSlow: (() => void) | null = null;

  beforeAll(async () => {
    stand = await startStandIn((req, res) => {
      if (req.url?.startsWith('/slow')) {
        releaseSlow = () => sendJson(res, 200, { ok: true });
        return;
      }
      sendJson(res, 200, { ok: true });
    });
    t = await startTestApp({ HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}` });
    admin = (await t.request('POST', '/api/tenants', { body: { slug: 'policed' } })).body.secret;
    operator = (await t.request('POST', '/api/keys', { key: admin, body: { name: 'op', role: 'operator' } }))
      .body.secret;
    otherAdmin = (await t.request('POST', '/api/tenants', { body: { slug: 'unpoliced' } })).body.secret;
    for (const key of [admin, otherAdmin]) {
      for (const [name, spec] of [
        ['ci_count', { tool_type: 'sql', tool_config: countQuery }],
        ['ci_count_limited', { tool_type: 'sql', tool_config: countQuery }],
        ['ci_count_confirmed', { tool_type: 'sql', tool_config: countQuery }],
        ['slow_call', { tool_type: 'http', tool_config: { method: 'GET', url: `${stand.url}/slow` } }],
      ] as const) {
        const created = await t.request('POST', '/api/assets', {
          key,
          body: {
            asset_type: 'tool',
            name,
            description: name,
            tool_input_schema: { type: 'object', properties: {} },
            ...spec,
          },
        });
        expect((await t.request('POST', `/api/assets/${created.body.id}/publish`, { key })).status).toBe(200);
      }
    }
    const policy = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'policy',
        name: 'tool-access',
        content: {
          policy_type: 'tool_access',
          settings: {
            tools: {
              ci_count: { roles: ['admin'] },
              ci_count_limited: { rate_per_minute: 2 },
              ci_count_confirmed: { requires_confirmation: true },
              'slow_*': { max_concurrent: 1 },
            },
          },
        },
      },
    });
    expect(policy.status).toBe(201);
    expect((await t.request('POST', `/api/assets/${policy.body.id}/publish`, { key: admin })).status).toBe(
      200,
    );
  });
  afterAll(async () => {
    await t?.close();
    await stand?.close();
  });

  const run = (key: string, tool: string, body: Record<string, unknown> = {}) =>
    t.request('POST', `/ops/tools/${tool}/execute`, { key, body: { input: {}, ...body } });

  it('lets only the roles the policy names run a tool, over HTTP and in a stage', async () => {
    const refused = await run(operator, 'ci_count');
    expect(refused).toMatchObject({
      status: 403,
      body: {
        error: 'TOOL_FORBIDDEN_BY_POLICY',
        message: expect.stringContaining('admin'),
        details: { policy_rule: 'ci_count', role: 'operator' },
        requestId: expect.any(String),
      },
    });
    expect((await run(admin, 'ci_count')).body).toMatchObject({ success: true, data: { rows: [{ n: 0 }] } });
    const stage = await t.request('POST', '/ops/stage/execute', {
      key: operator,
      body: { stage_name: 'count', tools: [{ id: 'count', tool_name: 'ci_count', input: {} }] },
    });
    expect(JSON.stringify(stage.body)).toContain('FORBIDDEN');
    // Another tenant's tools are not governed by this tenant's policy.
    expect((await run(otherAdmin, 'ci_count')).body).toMatchObject({ success: true });
  });

  it('holds a tool the policy marks for confirmation until a person confirms it', async () => {
    const held = await run(operator, 'ci_count_confirmed');
    expect(held.body).toMatchObject({
      success: false,
      error_details: { code: 'CONFIRMATION_REQUIRED' },
      pending_action: { status: 'pending_confirmation', tool: 'ci_count_confirmed' },
    });
    const confirmed = await t.request('POST', `/api/actions/${held.body.pending_action.action_id}/confirm`, {
      key: operator,
    });
    expect(confirmed.body).toMatchObject({ result: { success: true } });
    expect((await run(operator, 'ci_count_confirmed', { confirm: true })).body).toMatchObject({
      success: true,
    });
  });

  it('refuses runs over the rate and concurrency limits with a 429', async () => {
    expect((await run(operator, 'ci_count_limited')).status).toBe(200);
    expect((await run(operator, 'ci_count_limited')).status).toBe(200);
    const third = await run(operator, 'ci_count_limited');
    expect(third).toMatchObject({
      status: 429,
      body: { message: expect.stringContaining('2 times a minute') },
    });
    expect(third.headers.get('retry-after')).toBeTruthy();

    const first = run(operator, 'slow_call');
    while (!releaseSlow) await sleep(20);
    const second = await run(operator, 'slow_call');
    expect(second).toMatchObject({ status: 429, body: { message: expect.stringContaining('1 at a time') } });
    releaseSlow();
    expect((await first).body).toMatchObject({ success: true });
  });

  it('refuses a malformed tool_access policy when it is saved', async () => {
    const bad = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'policy',
        name: 'bad-access',
        content: { policy_type: 'tool_access', settings: { tools: { ci_count: { roles: ['root'] } } } },
      },
    });
    expect(bad.status).toBe(400);
  });
});
