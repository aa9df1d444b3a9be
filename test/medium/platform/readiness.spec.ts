import { DataSource } from 'typeorm';
import { HealthRegistry, runAsSystem } from '@app/platform';
import { sleep, startTestContext, TestContext, testBackend } from '@test/support';

/**
 * Readiness must not queue behind the database's work: on the embedded backend an open transaction
 * (a large ingestion's write) holds every other connection, and a probe waiting behind it past the
 * readiness timeout made /health/ready answer 503 (a load balancer would pull the instance).
 */
describe(`readiness under a long transaction (${testBackend()})`, () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestContext();
  });
  afterAll(() => ctx.close());

  it('stays ready while another connection holds a transaction open past the readiness timeout', async () => {
    const registry = ctx.get(HealthRegistry);
    expect((await registry.report(3000)).checks.database.status).toBe('ok');
    const runner = ctx.get(DataSource).createQueryRunner();
    await runner.connect();
    const timeoutMs = 1000;
    try {
      await runAsSystem('test: hold a transaction', async () => {
        await runner.startTransaction();
        await runner.query('SELECT count(*) FROM tenants');
      });
      // Held for longer than the readiness timeout, as a large ingestion's write transaction can be.
      const held = sleep(timeoutMs * 2.5).then(() => runner.commitTransaction());
      const report = await registry.report(timeoutMs);
      await held;
      expect(report.status).not.toBe('down');
      expect(report.checks.database.status).toBe('ok');
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
