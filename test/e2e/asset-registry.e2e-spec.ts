import { DataSource } from 'typeorm';
import { queryAsOwner, startTestApp, TestApp, testBackend } from '@test/support';

const tool = {
  asset_type: 'tool',
  name: 'cpu_top',
  description: 'Servers with the highest CPU usage',
  tags: ['metrics'],
  tool_type: 'sql',
  tool_config: {
    // Only the OPS views exist for sql tools: a query over another table is refused at publish.
    query: 'SELECT id, name FROM configuration_items WHERE environment = :environment ORDER BY name',
    row_limit: 50,
  },
  tool_input_schema: {
    type: 'object',
    properties: {
      environment: { type: 'string', enum: ['prod', 'staging', 'dev'] },
      limit: { type: 'integer' },
    },
    required: ['environment'],
  },
  tool_output_schema: {
    type: 'object',
    properties: { rows: { type: 'array' }, row_count: { type: 'integer' } },
  },
};

describe(`asset registry over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  let operator: string;
  let otherAdmin: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = (await t.request('POST', '/api/tenants', { body: { slug: 'acme' } })).body.secret;
    otherAdmin = (await t.request('POST', '/api/tenants', { body: { slug: 'rival' } })).body.secret;
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: role, role } })).body
        .secret as string;
    reader = await key('reader');
    operator = await key('operator');
  });
  afterAll(() => t.close());

  it('runs the lifecycle: create, publish, edit, breaking change blocked then forced, rollback, history, diff, archive', async () => {
    const created = await t.request('POST', '/api/assets', { key: admin, body: tool });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'draft', version: 0, tool_type: 'sql', tags: ['metrics'] });
    const id: string = created.body.id;

    expect((await t.request('GET', `/api/assets/${id}`, { key: reader })).status).toBe(404);
    const v1 = await t.request('POST', `/api/assets/${id}/publish`, { key: admin });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      version: 1,
      contract_check: { issues: [], breaking_changes: [] },
      dry_run: { status: 'skipped' },
    });

    const patched = await t.request('PATCH', `/api/assets/${id}`, {
      key: admin,
      body: {
        tool_input_schema: {
          type: 'object',
          properties: { environment: { type: 'string', enum: ['prod', 'staging'] } },
          required: ['environment'],
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      status: 'draft',
      published_version: 1,
      has_unpublished_changes: true,
    });
    const asReader = await t.request('GET', `/api/assets/${id}`, { key: reader });
    expect(asReader.status).toBe(200);
    expect(asReader.body.tool_input_schema.properties.limit).toEqual({ type: 'integer' });

    const blocked = await t.request('POST', `/api/assets/${id}/publish`, { key: admin, body: {} });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toBe('ASSET_BREAKING_CHANGE');
    expect(blocked.body.details.breaking_changes.map((c: { path: string }) => c.path).sort()).toEqual([
      'environment',
      'limit',
    ]);
    const forced = await t.request('POST', `/api/assets/${id}/publish`, {
      key: admin,
      body: { force: true, note: 'drop dev' },
    });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ version: 2, note: 'drop dev', contract_check: { forced: true } });

    const published = await t.request('GET', '/api/assets/published/tool/cpu_top', { key: reader });
    expect(published.body).toMatchObject({ version: 2, name: 'cpu_top', snapshot: { tool_type: 'sql' } });

    const rolled = await t.request('POST', `/api/assets/${id}/rollback`, {
      key: admin,
      body: { version: 1, force: true },
    });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ version: 3, rollback_from_version: 1 });

    const history = await t.request('GET', `/api/assets/${id}/versions`, { key: reader });
    expect(history.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const v2 = await t.request('GET', `/api/assets/${id}/versions/2`, { key: reader });
    expect(v2.body.snapshot.tool_input_schema.properties.limit).toBeUndefined();
    const diff = await t.request('GET', `/api/assets/${id}/diff?from=2&to=3`, { key: reader });
    expect(diff.status).toBe(200);
    expect(diff.body.changes).toEqual(
      expect.arrayContaining([
        { path: 'tool_input_schema.properties.limit', change: 'added', to: { type: 'integer' } },
      ]),
    );
    expect((await t.request('GET', `/api/assets/${id}/diff?from=1&to=draft`, { key: reader })).status).toBe(
      403,
    );
    expect((await t.request('GET', `/api/assets/${id}/diff?from=1&to=latest`, { key: admin })).status).toBe(
      400,
    );

    const list = await t.request('GET', '/api/assets?type=tool&tag=metrics&limit=10', { key: reader });
    expect(list.body).toMatchObject({
      total: 1,
      limit: 10,
      offset: 0,
      items: [{ name: 'cpu_top', version: 3 }],
    });

    const archived = await t.request('POST', `/api/assets/${id}/archive`, { key: admin });
    expect(archived.body).toMatchObject({ status: 'archived', published_version: null });
    expect((await t.request('GET', '/api/assets/published/tool/cpu_top', { key: reader })).status).toBe(404);
    expect((await t.request('GET', '/api/assets?type=tool', { key: reader })).body.total).toBe(0);
    const adminList = await t.request('GET', '/api/assets?type=tool&status=archived', { key: admin });
    expect(adminList.body.items.map((a: { id: string }) => a.id)).toEqual([id]);
  });

  it('answers 400 naming the field for an invalid asset', async () => {
    const bad = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'mapping',
        name: 'kw',
        content: { mappings: [{ keyword: 'CPU', value: 'cpu_usage', kind: 'gauge' }] },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'ASSET_INVALID',
      details: { fields: [{ field: 'content.mappings[0].kind' }] },
      requestId: expect.any(String),
    });
    const wrongField = await t.request('POST', '/api/assets', {
      key: admin,
      body: { asset_type: 'prompt', name: 'p', scope: 's', engine: 'e', template: 't', tool_type: 'http' },
    });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.details.fields).toEqual([{ field: 'tool_type', errors: [expect.any(String)] }]);
    const unknown = await t.request('POST', '/api/assets', {
      key: admin,
      body: { asset_type: 'prompt', name: 'p', colour: 'red' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/colour/);
    const badConfig = await t.request('POST', '/api/assets', {
      key: admin,
      body: { ...tool, name: 'writer', tool_config: { query: 'DELETE FROM servers' } },
    });
    expect(badConfig.status).toBe(400);
    expect(badConfig.body.details.fields[0].field).toBe('tool_config.query');
  });

  it('refuses every write to non-admins with 403', async () => {
    const draft = await t.request('POST', '/api/assets', {
      key: admin,
      body: { asset_type: 'screen', name: 'home', content: { components: [{ id: 'a', type: 'table' }] } },
    });
    const id: string = draft.body.id;
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/assets', { asset_type: 'screen', name: 'x', content: { components: [] } }],
      ['PATCH', `/api/assets/${id}`, { description: 'x' }],
      ['POST', `/api/assets/${id}/publish`, {}],
      ['POST', `/api/assets/${id}/rollback`, { version: 1 }],
      ['POST', `/api/assets/${id}/archive`, {}],
      ['POST', '/api/assets/catalog/sync', { name: 'c' }],
    ];
    for (const key of [reader, operator]) {
      for (const [method, route, body] of writes) {
        const res = await t.request(method, route, { key, body });
        expect({ route, status: res.status }).toEqual({ route, status: 403 });
      }
    }
    expect((await t.request('GET', `/api/assets/${id}`, { key: admin })).body.description).toBeNull();
  });

  it('hides one tenant’s assets from another (404)', async () => {
    const created = await t.request('POST', '/api/assets', {
      key: admin,
      body: { asset_type: 'policy', name: 'limits', content: { policy_type: 'tool_access', settings: {} } },
    });
    const id: string = created.body.id;
    await t.request('POST', `/api/assets/${id}/publish`, { key: admin });
    for (const route of [
      `/api/assets/${id}`,
      `/api/assets/${id}/versions`,
      `/api/assets/${id}/versions/1`,
      `/api/assets/${id}/diff?from=1&to=1`,
      '/api/assets/published/policy/limits',
    ]) {
      const res = await t.request('GET', route, { key: otherAdmin });
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
    }
    expect((await t.request('POST', `/api/assets/${id}/archive`, { key: otherAdmin })).status).toBe(404);
    expect((await t.request('PATCH', `/api/assets/${id}`, { key: otherAdmin, body: {} })).status).toBe(404);
    expect((await t.request('GET', '/api/assets?type=policy', { key: otherAdmin })).body.total).toBe(0);
  });

  it('refuses a tenant admin a sync of the service database (403) and lets a system admin sync and publish it', async () => {
    // Created by the owner, as a migration would (the application role may not create tables).
    await queryAsOwner(
      t.database,
      t.app.get(DataSource),
      `
      CREATE TABLE ops_cpu (server_id text PRIMARY KEY, environment text NOT NULL, cpu numeric);
      COMMENT ON TABLE ops_cpu IS 'CPU 사용률';
      INSERT INTO ops_cpu SELECT 'sys-' || i, (ARRAY['prod', 'staging', 'dev'])[1 + i % 3], i FROM generate_series(1, 9) i;
    `,
    );
    for (const body of [
      { name: 'ops' },
      { name: 'ops', tables: ['api_keys'] },
      { name: 'ops', schema: 'pg_catalog' },
    ]) {
      const refused = await t.request('POST', '/api/assets/catalog/sync', { key: admin, body });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        error: 'CATALOG_SYNC_FORBIDDEN',
        message: expect.stringContaining('Only a system admin'),
      });
    }
    const system = await t.request('POST', '/api/assets/catalog/sync', {
      body: { name: 'sys', schema: 'pg_catalog' },
    });
    expect(system.status).toBe(400);

    // t.adminKey (the default key) is the system admin of the default tenant.
    const synced = await t.request('POST', '/api/assets/catalog/sync', {
      body: { name: 'ops', tables: ['ops_cpu'] },
    });
    expect(synced.status).toBe(200);
    expect(synced.body).toMatchObject({ created: true, summary: { tables: 1, columns: 3, enum_columns: 1 } });
    expect(synced.body.asset.content.tables[0]).toMatchObject({
      name: 'ops_cpu',
      description: 'CPU 사용률',
      primary_key: ['server_id'],
      columns: expect.arrayContaining([
        expect.objectContaining({ name: 'environment', enum_values: ['dev', 'prod', 'staging'] }),
      ]),
    });
    const publish = await t.request('POST', `/api/assets/${synced.body.asset.id}/publish`);
    expect(publish.status).toBe(200);
    const served = await t.request('GET', '/api/assets/published/catalog/ops');
    expect(served.body.snapshot.content.source).toMatchObject({ kind: 'internal', schema: 'public' });
  });

  it('documents each asset type’s content schema in OpenAPI and at /api/assets/schemas', async () => {
    const docs = await t.request('GET', '/docs-json', { key: null });
    expect(Object.keys(docs.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/assets',
        '/api/assets/{id}/publish',
        '/api/assets/{id}/rollback',
        '/api/assets/{id}/diff',
        '/api/assets/catalog/sync',
      ]),
    );
    const text = JSON.stringify(docs.body.components.schemas);
    for (const title of [
      'CatalogContent',
      'MappingContent',
      'PolicyContent',
      'SourceContent',
      'HttpToolConfig',
    ]) {
      expect(text).toContain(title);
    }
    const schemas = await t.request('GET', '/api/assets/schemas', { key: reader });
    expect(Object.keys(schemas.body).sort()).toEqual(
      [
        'catalog',
        'mapping',
        'policy',
        'prompt',
        'query',
        'resolver',
        'screen',
        'source',
        'stage',
        'tool',
      ].sort(),
    );
    // The document is built without starting the libs (apps/api/src/docs/asset-type-docs.ts lists what
    // they register): it names the types and tool kinds the started app's registries hold.
    const created = docs.body.components.schemas.CreateAssetRequestDto.properties;
    expect(created.asset_type.enum).toEqual(Object.keys(schemas.body).sort());
    expect(created.tool_type.enum).toEqual(schemas.body.tool.properties.tool_type.enum);
    expect(created.tool_type.enum).toEqual(['http', 'sql']);
  });
});
