import { currentDatabaseScope } from '@app/platform';
import { scopedForTests } from '@test/support';

const TENANT = '11111111-1111-4111-8111-111111111111';
const DOCUMENT = '22222222-2222-4222-8222-222222222222';

/** Reports the database scope each call ran in. */
class Probe {
  search(tenantId: string, _query: string) {
    return { tenantId, scope: currentDatabaseScope() };
  }
  byId(documentId: string) {
    return { documentId, scope: currentDatabaseScope() };
  }
  run(context: { tenantId: string; userId: string }, _name: string) {
    return { context, scope: currentDatabaseScope() };
  }
  readonly arrow = async (tenantId: string) => Promise.resolve({ tenantId, scope: currentDatabaseScope() });
}

describe('the scope a medium test call runs in (the stand-in for the request layer)', () => {
  const probe = scopedForTests(new Probe());

  it('runs as the tenant the method names as its tenantId parameter', () => {
    expect(probe.search(TENANT, 'q').scope).toEqual({ tenantId: TENANT, bypass: false });
  });

  it('runs as the tenant an argument names in its tenantId field', () => {
    expect(probe.run({ tenantId: TENANT, userId: 'u' }, 'x').scope).toEqual({
      tenantId: TENANT,
      bypass: false,
    });
  });

  it('does not take an id-shaped argument for a tenant: a document id runs as the system', () => {
    expect(probe.byId(DOCUMENT).scope).toEqual({ tenantId: null, bypass: true });
  });

  it('reads the parameter name of an arrow-function property too', async () => {
    expect((await probe.arrow(TENANT)).scope).toEqual({ tenantId: TENANT, bypass: false });
  });

  it('runs every call as the tenant given explicitly, whatever the parameters', () => {
    const scoped = scopedForTests(new Probe(), { tenantId: TENANT });
    expect(scoped.byId(DOCUMENT).scope).toEqual({ tenantId: TENANT, bypass: false });
  });
});
