import { DataSource } from 'typeorm';
import { runAsSystem } from '@app/platform';
import { startTestApp, TestApp, testBackend } from '@test/support';

describe(`resolver assets used by ci_lookup (${testBackend()})`, () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'resolving' } });
    admin = created.body.secret;
    await runAsSystem('test: seed configuration items', () =>
      t.app.get(DataSource).query(
        `INSERT INTO ops_configuration_items (tenant_id, name, ci_type, environment, status)
         VALUES ($1, 'SRV-PAY-01', 'server', 'prod', 'running'), ($1, 'SRV-WEB-01', 'server', 'prod', 'running')`,
        [created.body.tenant.id],
      ),
    );
  });
  afterAll(() => t?.close());

  const lookup = (keywords: string[]) =>
    t.request('POST', '/ops/tools/ci_lookup/execute', { key: admin, body: { input: { keywords } } });

  it('maps a name a person types to the configuration item a published resolver names', async () => {
    expect((await lookup(['결제서버'])).body).toMatchObject({ success: true, data: { total: 0 } });
    const created = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'resolver',
        name: 'ci-aliases',
        content: {
          rules: [{ match_type: 'exact', pattern: '결제서버', field: 'name', value: 'SRV-PAY-01' }],
        },
      },
    });
    expect((await t.request('POST', `/api/assets/${created.body.id}/publish`, { key: admin })).status).toBe(
      200,
    );
    const found = await lookup(['결제서버']);
    expect(found.body).toMatchObject({
      success: true,
      data: { total: 1, items: [{ name: 'SRV-PAY-01' }] },
      metadata: {
        resolved: [{ keyword: '결제서버', field: 'names', value: 'SRV-PAY-01', resolver: 'ci-aliases' }],
      },
    });
  });

  it('keeps a word the resolvers know when planning, so the question reaches the item it names', async () => {
    // The resolver published above: "결제서버" is SRV-PAY-01, a word no catalog or mapping of this tenant knows.
    const planned = await t.request('POST', '/ops/plan', {
      key: admin,
      body: { query: '결제서버 상태 알려줘' },
    });
    expect(planned.status).toBe(200);
    const lookupStep = planned.body.plan.steps.find(
      (s: { tool_type: string }) => s.tool_type === 'ci_lookup',
    );
    expect(lookupStep?.parameters.keywords).toContain('결제서버');
    const asked = await t.request('POST', '/ops/ask', {
      key: admin,
      body: { query: '결제서버 상태 알려줘' },
    });
    expect(asked.status).toBe(200);
    const ran = asked.body.execution.steps.find((s: { tool_type: string }) => s.tool_type === 'ci_lookup');
    expect(ran.result).toMatchObject({
      success: true,
      data: { total: 1, items: [{ name: 'SRV-PAY-01', status: 'running' }] },
      metadata: { resolved: [{ keyword: '결제서버', value: 'SRV-PAY-01' }] },
    });
  });
});
