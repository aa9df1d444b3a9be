import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { type Actor, AssetRegistryService } from '@app/asset-registry';
import { DataSource } from 'typeorm';
import { AuthService, ChangeBus, ChangePropagation, runAsSystem } from '@app/platform';
import { ToolRegistry, ToolsModule } from '@app/tools';
import { sleep, startTestContext, TestContext, testBackend } from '@test/support';

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${check.toString()}`);
    await sleep(20);
  }
}

// Two application instances on one database stand for two processes; embedded PGlite serves one
// process only, so there is nothing to propagate to there.
(testBackend() === 'native' ? describe : describe.skip).each(['redis', 'postgres'] as const)(
  'changes reach another process (bus: %s)',
  (bus) => {
    let a: TestContext;
    let b: TestContext;
    let server: Server;
    let base: string;
    let actor: Actor;

    beforeAll(async () => {
      server = createServer((req, res) => res.end(JSON.stringify({ up: true, path: req.url })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      base = `http://127.0.0.1:${port}`;
      const env = {
        HTTP_TOOL_ALLOWLIST: `127.0.0.1:${port}`,
        // postgres: no Redis, so the bus is LISTEN/NOTIFY and each instance has its own memory cache.
        ...(bus === 'postgres' ? { REDIS_URL: '' } : {}),
      };
      a = await startTestContext([ToolsModule], env);
      b = await startTestContext([ToolsModule], env, a.database);
      const tenantId = (await a.get(AuthService).createTenant(`prop-${bus}`, 'Prop', undefined)).tenant.id;
      actor = { tenantId, userId: 'alice' };
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await new Promise((resolve) => server.close(resolve));
    });

    const spec = (path: string) => ({
      tool_type: 'http',
      tool_config: { method: 'GET', url: `${base}/${path}`, timeout_ms: 2000 },
      tool_input_schema: { type: 'object', properties: {} },
      tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' } } },
    });

    it(`uses the ${bus} bus`, () => {
      expect(b.get(ChangeBus).backend).toBe(bus);
    });

    it('a tool published, rolled back and archived in A is served the same way by B', async () => {
      const assets = a.get(AssetRegistryService);
      const registryB = b.get(ToolRegistry);
      const asset = await assets.create(actor, {
        asset_type: 'tool',
        name: `probe_${bus}`,
        description: 'probe',
        spec: spec('v1'),
      });
      await assets.publish(actor, asset.id);
      await eventually(() => registryB.definition(actor.tenantId, `probe_${bus}`)?.version === 1);

      await assets.update(actor, asset.id, { spec: spec('v2') });
      await assets.publish(actor, asset.id);
      await eventually(() => registryB.definition(actor.tenantId, `probe_${bus}`)?.version === 2);

      await assets.rollback(actor, asset.id, 1);
      await eventually(() => registryB.definition(actor.tenantId, `probe_${bus}`)?.version === 3);

      await assets.archive(actor, asset.id);
      await eventually(() => !registryB.has(actor.tenantId, `probe_${bus}`));
    });

    it('a publish whose message was lost is picked up by the change-generation poll', async () => {
      const assets = a.get(AssetRegistryService);
      const registryB = b.get(ToolRegistry);
      const asset = await assets.create(actor, {
        asset_type: 'tool',
        name: `silent_${bus}`,
        description: 'published while the bus was down',
        spec: spec('silent'),
      });
      // A loses its bus: its publish reaches B only through the generations.
      await a.get(ChangeBus).stop();
      await assets.publish(actor, asset.id);
      await sleep(300);
      expect(registryB.has(actor.tenantId, `silent_${bus}`)).toBe(false);
      expect(await b.get(ChangePropagation).poll()).toBeGreaterThanOrEqual(1);
      expect(registryB.definition(actor.tenantId, `silent_${bus}`)).toMatchObject({ version: 1 });
      // Nothing moved since: the next poll resynchronises nothing.
      expect(await b.get(ChangePropagation).poll()).toBe(0);
    });
  },
);

describe(`tenant change generations (${testBackend()})`, () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestContext([ToolsModule]);
  });
  afterAll(() => ctx.close());

  it('are bumped by publish and archive in the same transaction, and only those', async () => {
    const tenantId = (await ctx.get(AuthService).createTenant('gen', 'Gen', undefined)).tenant.id;
    const actor = { tenantId, userId: 'alice' };
    const generation = async () => {
      const rows = await runAsSystem('test: read generations', () =>
        ctx.app
          .get(DataSource)
          .query<Array<{ assets: string }>>(
            `SELECT assets FROM tenant_change_generations WHERE tenant_id = $1`,
            [tenantId],
          ),
      );
      return rows[0]?.assets;
    };
    const assets = ctx.get(AssetRegistryService);
    const asset = await assets.create(actor, {
      asset_type: 'screen',
      name: 'p',
      description: 'p',
      spec: { content: { title: 'hello', components: [] } },
    });
    expect(await generation()).toBeUndefined();
    await assets.publish(actor, asset.id);
    expect(await generation()).toBe('1');
    await assets.update(actor, asset.id, { spec: { content: { title: 'hello again', components: [] } } });
    expect(await generation()).toBe('1');
    await assets.archive(actor, asset.id);
    expect(await generation()).toBe('2');
  });
});
