import { statSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { PlatformConfig, AuthService, SECRETS_KEY_FILE, TenantSecretsService } from '@app/platform';
import { startTestContext, TestContext, testBackend } from '@test/support';

describe(`tenant secret store (${testBackend()})`, () => {
  let ctx: TestContext;
  let secrets: TenantSecretsService;
  let tenantA: string;
  let tenantB: string;

  beforeAll(async () => {
    // No SECRETS_KEY: embedded generates one into DATA_DIR, native refuses to invent one.
    ctx = await startTestContext([], { SECRETS_KEY: '' });
    secrets = ctx.get(TenantSecretsService);
    const auth = ctx.get(AuthService);
    tenantA = (await auth.createTenant('store-a', 'A', undefined)).tenant.id;
    tenantB = (await auth.createTenant('store-b', 'B', undefined)).tenant.id;
  });
  afterAll(() => ctx.close());

  // Native: a shared server, so no key is invented for it; embedded: the key is generated into DATA_DIR.
  (testBackend() === 'native' ? describe : describe.skip)('native: without SECRETS_KEY', () => {
    it('refuses to store a secret without SECRETS_KEY (503), rather than invent a key', async () => {
      await expect(secrets.put(tenantA, 'K', 'value', 'admin')).rejects.toMatchObject({
        code: 'SECRETS_KEY_MISSING',
        kind: 'UNAVAILABLE',
      });
    });
  });

  (testBackend() === 'embedded' ? describe : describe.skip)('embedded: a generated key file', () => {
    it('generates the key file once (0600), stores only ciphertext and resolves per tenant', async () => {
      await secrets.put(tenantA, 'BLOG_KEY', 'plain-value-123', 'admin');
      const file = path.join(ctx.get(PlatformConfig).dataDir, SECRETS_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const rows: Array<{ ciphertext: Buffer }> = await ctx
        .get(DataSource)
        .query(`SELECT ciphertext FROM tenant_secrets WHERE tenant_id = $1`, [tenantA]);
      expect(rows).toHaveLength(1);
      expect(rows[0].ciphertext.toString('utf8')).not.toContain('plain-value');
      expect(await secrets.resolve(tenantA, 'secret:BLOG_KEY')).toBe('plain-value-123');
      await expect(secrets.resolve(tenantB, 'secret:BLOG_KEY')).rejects.toMatchObject({
        code: 'SECRET_REF_UNRESOLVABLE',
      });
      // A row copied into another tenant does not decrypt there (the tenant is the associated data).
      await ctx.get(DataSource).query(
        `INSERT INTO tenant_secrets (tenant_id, name, ciphertext, iv, auth_tag, key_id)
         SELECT $2, name, ciphertext, iv, auth_tag, key_id FROM tenant_secrets WHERE tenant_id = $1`,
        [tenantA, tenantB],
      );
      await expect(secrets.resolve(tenantB, 'secret:BLOG_KEY')).rejects.toMatchObject({
        code: 'SECRET_REF_UNRESOLVABLE',
      });
    });
  });
});
