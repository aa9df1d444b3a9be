import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DemoDataService, ToolRegistry, ToolsModule } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';

describe(`demo dataset (${testBackend()})`, () => {
  let ctx: TestContext;
  let tenantId: string;
  beforeAll(async () => {
    ctx = await startTestContext([ToolsModule]);
    tenantId = (await ctx.get(AuthService).createTenant('demo-t', 'Demo', undefined)).tenant.id;
  }, 120_000);
  afterAll(() => ctx.close());

  it('loads (timing probe)', async () => {
    const started = Date.now();
    const status = await ctx.get(DemoDataService).load(tenantId, { scale: 'small' });
    console.log('load ms', Date.now() - started, status.counts);
    expect(status.state).toBe('ready');
    const again = Date.now();
    await ctx.get(DataSource).query(`UPDATE ops_demo_loads SET state = 'failed'`);
    const second = await ctx.get(DemoDataService).load(tenantId, { scale: 'small' });
    console.log('reload ms', Date.now() - again, second.counts);
    expect(second.counts).toEqual(status.counts);
    expect(
      ctx
        .get(ToolRegistry)
        .list(tenantId)
        .map((t) => t.name),
    ).toEqual(expect.arrayContaining(['ci_lookup', 'metric_query']));
  }, 600_000);
});
