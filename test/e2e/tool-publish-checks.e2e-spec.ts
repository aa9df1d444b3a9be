import { ToolRegistry } from '@app/tools';
import { startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const inputSchema = { type: 'object', properties: { p: { type: 'string' } } };

describe(`publish checks of tool assets (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let admin: string;
  let tenantId: string;

  beforeAll(async () => {
    stand = await startStandIn((_req, res) => sendJson(res, 200, { ok: true }));
    t = await startTestApp({ HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}` });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'publisher' } });
    admin = created.body.secret;
    tenantId = created.body.tenant.id;
  });
  afterAll(async () => {
    await t?.close();
    await stand?.close();
  });
  beforeEach(() => {
    stand.requests.length = 0;
  });

  async function publish(name: string, spec: Record<string, unknown>) {
    const created = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'tool',
        name,
        description: `tool ${name}`,
        tool_input_schema: inputSchema,
        ...spec,
      },
    });
    expect(created.status).toBe(201);
    const published = await t.request('POST', `/api/assets/${created.body.id}/publish`, { key: admin });
    return { id: created.body.id as string, published };
  }

  it.each([
    [
      'an http tool with a placeholder in the host',
      'bad_http_host',
      { tool_type: 'http', tool_config: { method: 'GET', url: 'http://{{input.p}}.example/x' } },
      'tool_config.url',
    ],
    [
      'an http tool with a forbidden header',
      'bad_http_header',
      {
        tool_type: 'http',
        tool_config: { method: 'GET', url: 'http://127.0.0.1:1/x', headers: { Host: 'evil' } },
      },
      'tool_config.headers.Host',
    ],
    [
      'an sql tool that writes',
      'bad_sql_write',
      {
        tool_type: 'sql',
        tool_config: {
          query: 'WITH gone AS (DELETE FROM configuration_items RETURNING *) SELECT * FROM gone',
        },
      },
      'tool_config.query',
    ],
    [
      'an sql tool whose placeholder is not an input',
      'bad_sql_param',
      {
        tool_type: 'sql',
        tool_config: { query: 'SELECT name FROM configuration_items WHERE name = :nope' },
      },
      'tool_input_schema.properties',
    ],
    [
      'an sql tool with a row limit over the maximum',
      'bad_sql_limit',
      {
        tool_type: 'sql',
        tool_config: { query: 'SELECT name FROM configuration_items', row_limit: 50_000 },
      },
      'tool_config.row_limit',
    ],
  ])('refuses %s with a 400 naming the field, and publishes nothing', async (_label, name, spec, field) => {
    const { id, published } = await publish(name, spec);
    expect(published.status).toBe(400);
    expect(published.body).toMatchObject({
      error: 'ASSET_CONTRACT_INVALID',
      message: expect.stringContaining(field),
      details: { issues: expect.arrayContaining([expect.objectContaining({ field })]) },
      requestId: expect.any(String),
    });
    const asset = await t.request('GET', `/api/assets/${id}`, { key: admin });
    expect(asset.body).toMatchObject({ status: 'draft', published_version: null });
    expect((await t.request('GET', `/api/assets/${id}/versions`, { key: admin })).body.versions).toEqual([]);
    expect(t.app.get(ToolRegistry).has(tenantId, name)).toBe(false);
  });

  it('treats every http method but GET as a side effect by default, and never calls it on publish', async () => {
    const { published } = await publish('delete_item', {
      tool_type: 'http',
      tool_config: { method: 'DELETE', url: `${stand.url}/items/{{input.p}}` },
      sample_input: { p: 'one' },
    });
    expect(published.status).toBe(200);
    expect(published.body.dry_run).toMatchObject({
      status: 'skipped',
      error: expect.stringMatching(/side effects/),
    });
    expect(stand.requests).toHaveLength(0);
    expect(t.app.get(ToolRegistry).definition(tenantId, 'delete_item')).toMatchObject({
      has_side_effects: true,
    });
  });

  it('runs a GET tool on publish and marks it (and sql tools) free of side effects', async () => {
    const get = await publish('get_item', {
      tool_type: 'http',
      tool_config: { method: 'GET', url: `${stand.url}/items/{{input.p}}` },
      sample_input: { p: 'one' },
    });
    expect(get.published.body.dry_run).toMatchObject({ status: 'passed' });
    expect(stand.requests.map((r) => [r.method, r.path])).toEqual([['GET', '/items/one']]);
    await publish('list_names', {
      tool_type: 'sql',
      tool_config: { query: 'SELECT name FROM configuration_items' },
    });
    const registry = t.app.get(ToolRegistry);
    expect(registry.definition(tenantId, 'get_item')).toMatchObject({ has_side_effects: false });
    expect(registry.definition(tenantId, 'list_names')).toMatchObject({ has_side_effects: false });
  });
});
