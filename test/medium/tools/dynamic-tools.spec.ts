import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { type Actor, AssetRegistryService } from '@app/asset-registry';
import { AuthService } from '@app/platform';
import { DynamicToolLoader, ToolContext, ToolRegistry, ToolsModule } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';

function context(tenantId: string): ToolContext {
  return {
    tenantId,
    userId: 'alice',
    requestId: 'r',
    traceId: 't',
    deadline: Date.now() + 5000,
    signal: new AbortController().signal,
  };
}

describe(`dynamic tools from published assets (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let assets: AssetRegistryService;
  let registry: ToolRegistry;
  let acme: Actor;
  let globex: Actor;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ up: true, served_by: req.url?.split('/')[1] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    ctx = await startTestContext([ToolsModule], { HTTP_TOOL_ALLOWLIST: `127.0.0.1:${port}` });
    assets = ctx.get(AssetRegistryService);
    registry = ctx.get(ToolRegistry);
    const auth = ctx.get(AuthService);
    acme = { tenantId: (await auth.createTenant('acme', 'Acme', undefined)).tenant.id, userId: 'alice' };
    globex = { tenantId: (await auth.createTenant('globex', 'Globex', undefined)).tenant.id, userId: 'bob' };
  });
  afterAll(async () => {
    await ctx.close();
    await new Promise((resolve) => server.close(resolve));
  });

  function statusSpec(path: string, description: string) {
    return {
      tool_type: 'http',
      tool_config: { method: 'GET', url: `${base}/${path}/{{input.host}}`, timeout_ms: 2000 },
      tool_input_schema: { type: 'object', properties: { host: { type: 'string' } }, required: ['host'] },
      tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' } } },
      description,
    };
  }

  it('adds, replaces, rolls back and removes the live tool as the asset changes, for its tenant only', async () => {
    const { description, ...spec1 } = statusSpec('v1', 'Server status (v1)');
    const asset = await assets.create(acme, {
      asset_type: 'tool',
      name: 'server_status',
      description,
      spec: spec1,
    });
    expect(registry.has(acme.tenantId, 'server_status')).toBe(false);

    await assets.publish(acme, asset.id);
    expect(registry.definition(acme.tenantId, 'server_status')).toMatchObject({
      version: 1,
      source: 'dynamic',
      kind: 'http',
    });
    expect(registry.has(globex.tenantId, 'server_status')).toBe(false);
    await expect(
      registry.execute(context(globex.tenantId), 'server_status', { host: 'a' }),
    ).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    expect(
      (await registry.execute(context(acme.tenantId), 'server_status', { host: 'web-01' })).data,
    ).toMatchObject({
      served_by: 'v1',
    });

    const { description: d2, ...spec2 } = statusSpec('v2', 'Server status (v2)');
    await assets.update(acme, asset.id, { description: d2, spec: spec2 });
    expect(registry.definition(acme.tenantId, 'server_status')?.version).toBe(1);
    await assets.publish(acme, asset.id);
    expect(registry.definition(acme.tenantId, 'server_status')).toMatchObject({ version: 2 });
    expect(
      (await registry.execute(context(acme.tenantId), 'server_status', { host: 'web-01' })).data,
    ).toMatchObject({
      served_by: 'v2',
    });

    await assets.rollback(acme, asset.id, 1);
    expect(registry.definition(acme.tenantId, 'server_status')).toMatchObject({ version: 3 });
    expect(
      (await registry.execute(context(acme.tenantId), 'server_status', { host: 'web-01' })).data,
    ).toMatchObject({
      served_by: 'v1',
    });

    await assets.archive(acme, asset.id);
    expect(registry.has(acme.tenantId, 'server_status')).toBe(false);
    expect(hits).toEqual(['/v1/web-01', '/v2/web-01', '/v1/web-01']);
  });

  it("loads every tenant's published tools at start-up", async () => {
    const { description, ...spec } = statusSpec('boot', 'Loaded at boot');
    const asset = await assets.create(globex, { asset_type: 'tool', name: 'boot_status', description, spec });
    await assets.publish(globex, asset.id);
    registry.replaceDynamicTools(globex.tenantId, []);
    expect(registry.has(globex.tenantId, 'boot_status')).toBe(false);

    await ctx.get(DynamicToolLoader).onApplicationBootstrap();
    expect(registry.definition(globex.tenantId, 'boot_status')).toMatchObject({ version: 1 });
    expect(registry.has(acme.tenantId, 'boot_status')).toBe(false);
  });
});
