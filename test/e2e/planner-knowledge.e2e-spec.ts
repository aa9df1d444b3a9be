import { KNOWLEDGE_INCOMPLETE_PREFIX } from '@app/planner';
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
});
