import { randomBytes } from 'node:crypto';
import type { ToolAssetSpec } from '@app/asset-registry';
import { HttpToolFactory, ToolRegistry } from '@app/tools';
import { sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const SECRET_A = `a-store-${randomBytes(12).toString('hex')}`;
const ENV_SECRET_A = `a-env-${randomBytes(12).toString('hex')}`;
const SECRET_B = `b-store-${randomBytes(12).toString('hex')}`;

/** Every spelling the stand-in echoes a received key in (the attack's "base64, reversed or spaced" forms). */
function encodings(value: string): string[] {
  const bytes = Buffer.from(value);
  return [
    value,
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    encodeURIComponent(value),
    [...value].reverse().join(''),
    [...value].join(' '),
    value.toUpperCase(),
  ];
}

function echoTool(url: string, name: string, secretRef: string): ToolAssetSpec {
  return {
    name,
    description: 'Sends a key and gets it echoed back',
    kind: 'http',
    tool_config: {
      method: 'GET',
      url: `${url}/echo`,
      headers: { 'X-Key': '{{secret}}' },
      secret_ref: secretRef,
    },
    tool_input_schema: {
      type: 'object',
      properties: { fail: { type: 'boolean' } },
      additionalProperties: false,
    },
    tool_output_schema: null,
    has_side_effects: false,
  };
}

describe(`tenant secrets and secret references (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let adminA: string;
  let adminB: string;
  let tenantB: string;

  const publishTool = async (key: string, { kind, ...spec }: ToolAssetSpec) => {
    const created = await t.request('POST', '/api/assets', {
      key,
      body: { asset_type: 'tool', tool_type: kind, ...spec },
    });
    expect(created.status).toBe(201);
    return t.request('POST', `/api/assets/${created.body.id}/publish`, { key });
  };
  const waitForTool = async (key: string, name: string) => {
    for (let i = 0; i < 100; i++) {
      if ((await t.request('GET', `/ops/tools/${name}`, { key })).status === 200) return;
      await sleep(20);
    }
    throw new Error(`tool ${name} never appeared`);
  };
  const execute = (key: string, name: string, input: Record<string, unknown> = {}) =>
    t.request('POST', `/ops/tools/${name}/execute`, { key, body: { input } });

  beforeAll(async () => {
    stand = await startStandIn((req, res) => {
      const key = String(req.headers['x-key'] ?? '');
      const echoed = Object.fromEntries(encodings(key).map((e, i) => [`form_${i}`, e]));
      if (req.url?.includes('fail'))
        return sendJson(res, 500, { error: `bad key ${encodings(key).join(' | ')}` });
      return sendJson(res, 200, { received: echoed, [`key_${key}`]: true });
    });
    t = await startTestApp({
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}`,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      OPS_SECRET_A_BLOG: ENV_SECRET_A,
      SECRET_ENV_GRANTS: 'tenant-a:OPS_SECRET_A_BLOG',
    });
    adminA = (await t.request('POST', '/api/tenants', { body: { slug: 'tenant-a' } })).body.secret;
    const b = await t.request('POST', '/api/tenants', { body: { slug: 'tenant-b' } });
    adminB = b.body.secret;
    tenantB = b.body.tenant.id;
  });
  afterAll(async () => {
    await t?.close();
    await stand?.close();
  });

  it('lets a tenant admin store, list (names only) and delete secrets; other roles and tenants see nothing', async () => {
    const put = await t.request('PUT', '/api/secrets/BLOG_KEY', { key: adminA, body: { value: SECRET_A } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'BLOG_KEY', created_by: expect.any(String) });
    expect(JSON.stringify(put.body)).not.toContain(SECRET_A);
    const list = await t.request('GET', '/api/secrets', { key: adminA });
    expect(list.body.secrets.map((s: { name: string }) => s.name)).toEqual(['BLOG_KEY']);
    expect(JSON.stringify(list.body)).not.toContain(SECRET_A);
    expect((await t.request('GET', '/api/secrets', { key: adminB })).body.secrets).toEqual([]);
    const reader = (
      await t.request('POST', '/api/keys', { key: adminA, body: { name: 'r', role: 'reader' } })
    ).body.secret;
    expect((await t.request('GET', '/api/secrets', { key: reader })).status).toBe(403);
    expect((await t.request('PUT', '/api/secrets/X', { key: reader, body: { value: 'v' } })).status).toBe(
      403,
    );
    expect(
      (await t.request('PUT', '/api/secrets/bad name', { key: adminA, body: { value: 'v' } })).status,
    ).toBe(400);
    expect((await t.request('PUT', '/api/secrets/EMPTY', { key: adminA, body: { value: '' } })).status).toBe(
      400,
    );
    expect((await t.request('DELETE', '/api/secrets/BLOG_KEY', { key: adminB })).status).toBe(404);
    expect((await t.request('PUT', '/api/secrets/GONE', { key: adminA, body: { value: 'x' } })).status).toBe(
      200,
    );
    expect((await t.request('DELETE', '/api/secrets/GONE', { key: adminA })).status).toBe(204);
  });

  it('sends a tenant its own secrets and never returns them, in any encoding, in a result or an error', async () => {
    expect((await publishTool(adminA, echoTool(stand.url, 'echo_store', 'secret:BLOG_KEY'))).status).toBe(
      200,
    );
    expect((await publishTool(adminA, echoTool(stand.url, 'echo_env', 'env:OPS_SECRET_A_BLOG'))).status).toBe(
      200,
    );
    const failing = echoTool(`${stand.url}/fail`, 'echo_fail', 'secret:BLOG_KEY');
    expect((await publishTool(adminA, failing)).status).toBe(200);
    for (const [tool, secret] of [
      ['echo_store', SECRET_A],
      ['echo_env', ENV_SECRET_A],
      ['echo_fail', SECRET_A],
    ] as const) {
      await waitForTool(adminA, tool);
      stand.requests.length = 0;
      const result = await execute(adminA, tool);
      expect(stand.requests.at(-1)?.headers['x-key']).toBe(secret);
      const text = JSON.stringify(result.body);
      expect(text).toContain('[REDACTED]');
      for (const form of encodings(secret))
        expect({ tool, leaked: text.includes(form) }).toEqual({ tool, leaked: false });
    }
  });

  it('refuses, at publish, tenant B’s references to tenant A’s secret and A’s env secret (400 naming them)', async () => {
    for (const ref of ['secret:BLOG_KEY', 'env:OPS_SECRET_A_BLOG']) {
      const name = `steal_${ref.startsWith('env') ? 'env' : 'store'}`;
      const published = await publishTool(adminB, echoTool(stand.url, name, ref));
      expect(published.status).toBe(400);
      expect(published.body).toMatchObject({
        error: 'SECRET_REF_UNRESOLVABLE',
        details: { secret_ref: ref },
      });
      expect(published.body.message).toContain(ref);
    }
  });

  it('fails tenant B’s tool at run time with a clear error, never A’s value, however it got registered', async () => {
    const registry = t.app.get(ToolRegistry);
    const factory = t.app.get(HttpToolFactory);
    stand.requests.length = 0;
    for (const [name, ref] of [
      ['steal_store_rt', 'secret:BLOG_KEY'],
      ['steal_env_rt', 'env:OPS_SECRET_A_BLOG'],
    ]) {
      registry.setDynamicTool(tenantB, factory.create(echoTool(stand.url, name, ref)));
      const result = await execute(adminB, name);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        success: false,
        error_details: { code: 'SECRET_MISSING', secret_ref: ref },
      });
      const text = JSON.stringify(result.body);
      for (const secret of [SECRET_A, ENV_SECRET_A]) expect(text).not.toContain(secret);
    }
    expect(stand.requests).toEqual([]);

    // B's own secret of the same name is B's, not A's.
    await t.request('PUT', '/api/secrets/BLOG_KEY', { key: adminB, body: { value: SECRET_B } });
    const own = await execute(adminB, 'steal_store_rt');
    expect(own.body.success).toBe(true);
    expect(stand.requests.at(-1)?.headers['x-key']).toBe(SECRET_B);
  });
});
