import { isEnvGranted, parseSecretEnvGrants } from './secret-env-grants.util';

describe('SECRET_ENV_GRANTS', () => {
  const grants = parseSecretEnvGrants(
    ' acme:OPS_SECRET_BLOG_KEY, OPS_SECRET_X ; 3f1c2a4e-0000-4000-8000-000000000001:OPS_SECRET_Y;*:OPS_SECRET_ALL',
  );

  it('grants names to a tenant by slug or id, and * to every tenant', () => {
    expect(isEnvGranted(grants, { id: 'id-acme', slug: 'acme' }, 'OPS_SECRET_BLOG_KEY')).toBe(true);
    expect(isEnvGranted(grants, { id: 'id-acme', slug: 'acme' }, 'OPS_SECRET_X')).toBe(true);
    expect(isEnvGranted(grants, { id: '3f1c2a4e-0000-4000-8000-000000000001' }, 'OPS_SECRET_Y')).toBe(true);
    expect(isEnvGranted(grants, { id: 'other', slug: 'rival' }, 'OPS_SECRET_ALL')).toBe(true);
  });

  it('grants nothing else: another tenant, another name, no grants at all', () => {
    expect(isEnvGranted(grants, { id: 'id-rival', slug: 'rival' }, 'OPS_SECRET_BLOG_KEY')).toBe(false);
    expect(isEnvGranted(grants, { id: 'id-acme', slug: 'acme' }, 'OPS_SECRET_Y')).toBe(false);
    expect(isEnvGranted(parseSecretEnvGrants(''), { id: 'a', slug: 'acme' }, 'OPS_SECRET_BLOG_KEY')).toBe(
      false,
    );
  });

  it('refuses an entry without a tenant', () => {
    expect(() => parseSecretEnvGrants('OPS_SECRET_X')).toThrow(/tenant:NAME/);
  });
});
