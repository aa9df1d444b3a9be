import { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { KNOWLEDGE_INCOMPLETE_PREFIX, PLANNER_ASSET_NAMES } from '@app/planner';
import { startTestApp, TestApp, testBackend } from '@test/support';

/** Planning before the tenant's catalog and keyword mappings are published (right after a first start). */
describe(`planner knowledge readiness (${testBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DEMO_DATA: 'off' });
  });
  afterAll(() => t.close());

  it('a plan made without the published knowledge says so, and /ops/ask says so in its answer', async () => {
    const plan = await t.request('POST', '/ops/plan', { body: { query: 'list the prod servers' } });
    expect(plan.status).toBe(200);
    expect(plan.body.valid).toBe(true);
    const incomplete = plan.body.warnings.filter((w: string) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX));
    expect(incomplete).toHaveLength(1);
    expect(incomplete[0]).toMatch(/catalog "ops" or mapping "ops-keywords"/);

    const asked = await t.request('POST', '/ops/ask', { body: { query: 'list the prod servers' } });
    expect(asked.status).toBe(200);
    expect(asked.body.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${KNOWLEDGE_INCOMPLETE_PREFIX}: `))]),
    );
    expect(asked.body.answer).toMatch(/planning knowledge .* is not published yet/);

    const korean = await t.request('POST', '/ops/ask', { body: { query: '운영 서버 목록 보여줘' } });
    expect(korean.body.answer).toContain('계획용 지식');
  });

  it("/health/ready reports each tenant's planning knowledge (versions, ready) without failing readiness", async () => {
    const tenants = await t.request('GET', '/api/tenants');
    expect(tenants.status).toBe(200);
    const slug: string = tenants.body.tenants[0].slug;
    const knowledge = async () => {
      // Public: counts only, no tenant is named to an anonymous caller (nor to a key that is not system admin).
      const anonymous = await t.request('GET', '/health/ready', { key: null });
      expect(anonymous.status).toBe(200);
      expect(anonymous.body.checks.planning_knowledge.tenants).toBeUndefined();
      expect(anonymous.body.checks.planning_knowledge.tenants_total).toBe(tenants.body.tenants.length);
      const ready = await t.request('GET', '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).not.toBe('down');
      return ready.body.checks.planning_knowledge;
    };

    const before = await knowledge();
    // Nothing published: reported, and the check itself stays ok (the planner still plans, with a warning).
    expect(before).toMatchObject({
      status: 'ok',
      catalog_name: PLANNER_ASSET_NAMES.catalog,
      mappings_name: PLANNER_ASSET_NAMES.mappings,
      tenants_ready: 0,
    });
    expect(before.tenants_total).toBe(tenants.body.tenants.length);
    expect(before.tenants[slug]).toEqual({ catalog: null, mappings: null, ready: false });

    const publish = async (asset_type: string, name: string, content: unknown) => {
      const created = await t.request('POST', '/api/assets', {
        body: { asset_type, name, content },
      });
      expect(created.status).toBe(201);
      const published = await t.request('POST', `/api/assets/${created.body.id}/publish`);
      expect(published.status).toBe(200);
    };
    await publish('catalog', PLANNER_ASSET_NAMES.catalog, OPS_CATALOG);
    // Partial: the catalog alone.
    expect((await knowledge()).tenants[slug]).toEqual({ catalog: 1, mappings: null, ready: false });
    const partial = await t.request('POST', '/ops/plan', { body: { query: 'list the prod servers' } });
    expect(
      partial.body.warnings.filter((w: string) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX)),
    ).toHaveLength(1);

    await publish('mapping', PLANNER_ASSET_NAMES.mappings, OPS_KEYWORD_MAPPINGS);
    const after = await knowledge();
    expect(after.tenants[slug]).toEqual({ catalog: 1, mappings: 1, ready: true });
    expect(after.tenants_ready).toBe(1);
    const complete = await t.request('POST', '/ops/plan', { body: { query: 'list the prod servers' } });
    expect(complete.body.warnings.filter((w: string) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX))).toEqual(
      [],
    );
  });
});
