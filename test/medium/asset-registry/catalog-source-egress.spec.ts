import { DataSource } from 'typeorm';
import {
  type Actor,
  AssetRegistryModule,
  AssetRegistryService,
  CatalogSyncService,
} from '@app/asset-registry';
import { AuthService } from '@app/platform';
import { NATIVE_ADMIN_URL, queryAsOwner, startTestContext, TestContext, testBackend } from '@test/support';

const UNIFORM = { code: 'CATALOG_SOURCE_UNAVAILABLE', message: 'Could not connect to the source database.' };

async function tenantActor(ctx: TestContext): Promise<Actor> {
  const tenant = await ctx.get(AuthService).createTenant('egress', 'Egress', undefined);
  return { tenantId: tenant.tenant.id, userId: 'admin' };
}

/** Publishes a source asset and syncs a catalog from it; resolves to the sync result or rejects. */
async function syncVia(ctx: TestContext, actor: Actor, name: string, connection: Record<string, unknown>) {
  const assets = ctx.get(AssetRegistryService);
  const source = await assets.create(actor, {
    asset_type: 'source',
    name,
    spec: { content: { kind: 'postgres', connection, schema: 'public' } },
  });
  await assets.publish(actor, source.id);
  return ctx.get(CatalogSyncService).sync(actor, { name: `${name}_catalog`, source: name });
}

describe(`catalog source hosts go through the egress policy (${testBackend()})`, () => {
  jest.setTimeout(60_000);
  const native = new URL(NATIVE_ADMIN_URL);

  describe('without an allowlist', () => {
    let ctx: TestContext;
    let actor: Actor;
    beforeAll(async () => {
      ctx = await startTestContext([AssetRegistryModule], {
        SECRET_ENV_GRANTS: 'egress:OPS_SECRET_EGRESS_TEST_URL',
      });
      actor = await tenantActor(ctx);
    });
    afterAll(() => ctx.close());

    it.each([
      ['loopback', { host: '127.0.0.1', port: Number(native.port || 5432), user: 'postgres' }],
      ['localhost', { host: 'localhost', user: 'postgres' }],
      ['a closed loopback port', { host: '127.0.0.1', port: 1, user: 'postgres' }],
      ['a private address', { host: '10.0.0.1', user: 'postgres' }],
      ['the metadata address', { host: '169.254.169.254', user: 'postgres' }],
      ['IPv6 loopback', { host: '::1', user: 'postgres' }],
    ])('refuses %s with the uniform error, before connecting', async (label, connection) => {
      const name = `src_${label.replace(/\W+/g, '_')}`;
      const error = await syncVia(ctx, actor, name, { ...connection, database: 'postgres' }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject(UNIFORM);
      expect((error as { details?: unknown }).details).toBeUndefined();
    });

    it('refuses a loopback connection string named by a secret the same way', async () => {
      process.env.OPS_SECRET_EGRESS_TEST_URL = NATIVE_ADMIN_URL;
      await expect(
        syncVia(ctx, actor, 'src_url', { url_ref: 'env:OPS_SECRET_EGRESS_TEST_URL' }),
      ).rejects.toMatchObject(UNIFORM);
      delete process.env.OPS_SECRET_EGRESS_TEST_URL;
    });
  });

  (testBackend() === 'native' ? describe : describe.skip)('with the loopback host allowlisted', () => {
    let ctx: TestContext;
    let actor: Actor;
    let database: string;
    beforeAll(async () => {
      ctx = await startTestContext([AssetRegistryModule], { SOURCE_HOST_ALLOWLIST: native.hostname });
      actor = await tenantActor(ctx);
      database = (ctx.get(DataSource).options as { database?: string }).database ?? '';
      if (!database) database = new URL(process.env.DATABASE_URL ?? NATIVE_ADMIN_URL).pathname.slice(1);
      // Created by the owner, as a migration would (the application role may not create tables).
      await queryAsOwner(
        ctx.database,
        ctx.app.get(DataSource),
        `CREATE TABLE egress_probe (id int PRIMARY KEY)`,
      );
    });
    afterAll(() => ctx.close());

    it('connects to an allowlisted loopback host', async () => {
      const result = await syncVia(ctx, actor, 'allowed', {
        host: native.hostname,
        port: Number(native.port || 5432),
        user: decodeURIComponent(native.username || 'postgres'),
        database,
      });
      const names = (result.asset.content as { tables: Array<{ name: string }> }).tables.map((t) => t.name);
      expect(names).toContain('egress_probe');
    });

    it('answers a closed port, an unknown database and an unknown user alike', async () => {
      const port = Number(native.port || 5432);
      const failures = await Promise.all(
        [
          { host: native.hostname, port: 1, user: 'postgres', database },
          { host: native.hostname, port, user: 'postgres', database: 'no_such_database_test' },
          { host: native.hostname, port, user: 'no_such_role', database },
        ].map((connection, i) => syncVia(ctx, actor, `failing_${i}`, connection).catch((e: unknown) => e)),
      );
      for (const error of failures) {
        expect(error).toMatchObject(UNIFORM);
        expect((error as { details?: unknown }).details).toBeUndefined();
      }
    });
  });
});
