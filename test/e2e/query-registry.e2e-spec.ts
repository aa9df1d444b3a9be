import { DataSource } from 'typeorm';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { APP_EVENTS, runAsSystem } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import { startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const byType = {
  type: 'object',
  properties: { ci_type: { type: 'string', enum: ['application', 'service', 'server', 'database'] } },
  required: ['ci_type'],
};

describe(`query registry: published query assets run as tools (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let admin: string;
  let tenantId: string;
  let otherAdmin: string;

  beforeAll(async () => {
    stand = await startStandIn((req, res) =>
      sendJson(res, 200, { items: [{ path: req.url, status: 'green' }] }),
    );
    t = await startTestApp({ HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}` });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'queries' } });
    admin = created.body.secret;
    tenantId = created.body.tenant.id;
    const other = await t.request('POST', '/api/tenants', { body: { slug: 'queries-other' } });
    otherAdmin = other.body.secret;
    await runAsSystem('test: seed configuration items', () =>
      t.app.get(DataSource).query(
        `INSERT INTO ops_configuration_items (tenant_id, name, ci_type, environment, status)
         VALUES ($1, 'web-1', 'server', 'prod', 'running'), ($1, 'web-2', 'server', 'prod', 'running'),
                ($2, 'foreign-1', 'server', 'prod', 'running')`,
        [tenantId, other.body.tenant.id],
      ),
    );
  });
  afterAll(async () => {
    await t?.close();
    await stand?.close();
  });

  async function publishQuery(name: string, fields: Record<string, unknown>, key = admin) {
    const created = await t.request('POST', '/api/assets', {
      key,
      body: { asset_type: 'query', name, description: `query ${name}`, ...fields },
    });
    expect(created.status).toBe(201);
    const published = await t.request('POST', `/api/assets/${created.body.id}/publish`, { key });
    return { id: created.body.id as string, published };
  }

  it('publishes an SQL query after its contract check and dry run, and runs it as a tenant-bound tool', async () => {
    const { id, published } = await publishQuery('servers_by_type', {
      query_sql: 'SELECT name FROM configuration_items WHERE ci_type = :ci_type ORDER BY name',
      query_params: byType,
      query_metadata: { sample_input: { ci_type: 'server' }, row_limit: 100 },
    });
    expect(published.status).toBe(200);
    expect(published.body.contract_check).toMatchObject({ issues: [] });
    expect(published.body.dry_run).toMatchObject({ status: 'passed' });

    const definition = await t.request('GET', '/ops/tools/servers_by_type', { key: admin });
    expect(definition.body).toMatchObject({
      name: 'servers_by_type',
      tool_type: 'query',
      source: 'dynamic',
      has_side_effects: false,
      input_schema: byType,
      version: 1,
    });
    const run = await t.request('POST', '/ops/tools/servers_by_type/execute', {
      key: admin,
      body: { input: { ci_type: 'server' } },
    });
    expect(run.body).toMatchObject({ success: true, data: { rows: [{ name: 'web-1' }, { name: 'web-2' }] } });
    const badInput = await t.request('POST', '/ops/tools/servers_by_type/execute', {
      key: admin,
      body: { input: { ci_type: 'toaster' } },
    });
    expect(badInput).toMatchObject({ status: 400, body: { error: 'TOOL_INPUT_INVALID' } });
    expect((await t.request('GET', '/ops/tools/servers_by_type', { key: otherAdmin })).status).toBe(404);
    const stage = await t.request('POST', '/ops/stage/execute', {
      key: admin,
      body: {
        stage_name: 'inventory',
        tools: [{ id: 'servers', tool_name: 'servers_by_type', input: { ci_type: 'server' } }],
      },
    });
    expect(JSON.stringify(stage.body)).toContain('web-2');

    // A process that missed change messages reloads the tenant's runnable assets: query tools included.
    await t.app.get(EventEmitter2).emitAsync(APP_EVENTS.TENANT_RESYNC, { tenantId, domains: ['assets'] });
    expect(t.app.get(ToolRegistry).has(tenantId, 'servers_by_type')).toBe(true);

    await t.request('POST', `/api/assets/${id}/archive`, { key: admin });
    expect(t.app.get(ToolRegistry).has(tenantId, 'servers_by_type')).toBe(false);
  });

  it('runs an HTTP query through the egress-checked client', async () => {
    const { published } = await publishQuery('item_status', {
      query_http: { method: 'GET', url: `${stand.url}/items/{{input.id}}` },
      query_params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      query_metadata: { sample_input: { id: 'a1' } },
    });
    expect(published.status).toBe(200);
    expect(published.body.dry_run).toMatchObject({ status: 'passed' });
    const run = await t.request('POST', '/ops/tools/item_status/execute', {
      key: admin,
      body: { input: { id: 'b2' } },
    });
    expect(run.body).toMatchObject({ success: true, data: { items: [{ path: '/items/b2' }] } });
    expect((await t.request('GET', '/ops/tools/item_status', { key: admin })).body.tool_type).toBe('query');
  });

  it.each([
    [
      'Cypher (there is no graph store)',
      'graph_paths',
      { query_cypher: 'MATCH (a)-[r]->(b) RETURN a, b' },
      'query_cypher',
      'graph store',
    ],
    [
      'SQL that writes',
      'drop_items',
      { query_sql: 'WITH gone AS (DELETE FROM configuration_items RETURNING *) SELECT * FROM gone' },
      'query_sql',
      'query_sql',
    ],
    [
      'an SQL placeholder its params do not declare',
      'undeclared_param',
      {
        query_sql: 'SELECT name FROM configuration_items WHERE name = :nope',
        query_params: { type: 'object', properties: {} },
      },
      'query_params.properties',
      'nope',
    ],
    [
      'a name no tool may have',
      'servers.by.type',
      { query_sql: 'SELECT name FROM configuration_items' },
      'name',
      'tool name',
    ],
    [
      'an HTTP query whose host comes from the input',
      'bad_host',
      {
        query_http: { method: 'GET', url: 'http://{{input.p}}.example/x' },
        query_params: { type: 'object', properties: { p: { type: 'string' } } },
      },
      'query_http.url',
      'query_http.url',
    ],
  ])('refuses %s at publish with a 400 naming the field', async (_label, name, fields, field, text) => {
    const { id, published } = await publishQuery(name, fields);
    expect(published.status).toBe(400);
    expect(published.body).toMatchObject({
      error: 'ASSET_CONTRACT_INVALID',
      message: expect.stringContaining(text),
      details: { issues: expect.arrayContaining([expect.objectContaining({ field })]) },
    });
    expect((await t.request('GET', `/api/assets/${id}`, { key: admin })).body.status).toBe('draft');
    expect(t.app.get(ToolRegistry).has(tenantId, name)).toBe(false);
  });

  it('refuses a query named like a published tool (both would be the tool of that name)', async () => {
    const tool = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'tool',
        name: 'twin_name',
        tool_type: 'sql',
        tool_config: { query: 'SELECT name FROM configuration_items' },
        tool_input_schema: { type: 'object', properties: {} },
      },
    });
    expect((await t.request('POST', `/api/assets/${tool.body.id}/publish`, { key: admin })).status).toBe(200);
    const { published } = await publishQuery('twin_name', { query_sql: 'SELECT 1 AS one' });
    expect(published).toMatchObject({ status: 409, body: { error: 'ASSET_NAME_TAKEN' } });
  });

  it('refuses to narrow the params of a published query unless forced', async () => {
    const { id } = await publishQuery('count_by_type', {
      query_sql: 'SELECT count(*)::int AS n FROM configuration_items WHERE ci_type = :ci_type',
      query_params: { type: 'object', properties: { ci_type: { type: 'string' } } },
    });
    await t.request('PATCH', `/api/assets/${id}`, {
      key: admin,
      body: { query_params: byType },
    });
    const blocked = await t.request('POST', `/api/assets/${id}/publish`, { key: admin });
    expect(blocked.body).toMatchObject({ error: 'ASSET_BREAKING_CHANGE' });
  });
});
