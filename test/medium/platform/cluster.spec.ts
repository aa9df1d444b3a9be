import { DocumentMaintenanceService, DocumentsModule } from '@app/documents';
import { DocumentsScheduler } from '@app/documents/testing';
import { ClusterLock, ProcessRole } from '@app/platform';
import { startTestContext, TestContext, testBackend } from '@test/support';

const native = testBackend() === 'native';
/** Two processes on one database: only the native server can be shared (PGlite locks its data directory). */
const describeTwoProcesses = native ? describe : describe.skip;
/** The embedded database serves one process, so the cluster lock has nothing to exclude. */
const describeEmbedded = native ? describe.skip : describe;

describe(`scheduled jobs run once per cluster (${testBackend()})`, () => {
  let a: TestContext;
  let b: TestContext;
  beforeAll(async () => {
    a = await startTestContext([DocumentsModule], { APP_ROLE: 'worker' });
    if (native) b = await startTestContext([DocumentsModule], { APP_ROLE: 'worker' }, a.database);
  });
  afterAll(async () => {
    await b?.close();
    await a.close();
  });

  describeEmbedded('embedded: one process, so every scheduled run goes ahead', () => {
    it('runs each job directly, never skipped, even the same job twice at once or within its interval', async () => {
      let runs = 0;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const lock = a.get(ClusterLock);
      const first = lock.runExclusive('test-job', async () => {
        runs++;
        await held;
        return 'first';
      });
      expect(await lock.runExclusive('test-job', () => Promise.resolve(++runs))).toEqual({
        skipped: false,
        result: 2,
      });
      release();
      expect(await first).toEqual({ skipped: false, result: 'first' });
      const every = { onceEverySeconds: 3600 };
      const outcomes = [
        await lock.runExclusive('interval-job', () => Promise.resolve(++runs), every),
        await lock.runExclusive('interval-job', () => Promise.resolve(++runs), every),
      ];
      expect(outcomes).toEqual([
        { skipped: false, result: 3 },
        { skipped: false, result: 4 },
      ]);
    });

    it('the daily document cleanup runs every time it fires', async () => {
      const cleanups = jest.spyOn(DocumentMaintenanceService.prototype, 'cleanup');
      try {
        for (let i = 0; i < 3; i++) await a.get(DocumentsScheduler).cleanup();
        expect(cleanups).toHaveBeenCalledTimes(3);
      } finally {
        cleanups.mockRestore();
      }
    });
  });

  describeTwoProcesses('native: two processes on one database', () => {
    it('a second process skips a job another one is running, and runs it once the first is done', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let runs = 0;
      const first = a.get(ClusterLock).runExclusive('test-job', async () => {
        runs++;
        await held;
        return 'first';
      });
      // Wait until the first run holds the lock.
      while (runs === 0) await new Promise((r) => setTimeout(r, 10));
      expect(await b.get(ClusterLock).runExclusive('test-job', () => Promise.resolve('second'))).toEqual({
        skipped: true,
      });
      expect(await b.get(ClusterLock).runExclusive('another-job', () => Promise.resolve('other'))).toEqual({
        skipped: false,
        result: 'other',
      });
      release();
      expect(await first).toEqual({ skipped: false, result: 'first' });
      expect(await b.get(ClusterLock).runExclusive('test-job', () => Promise.resolve('second'))).toEqual({
        skipped: false,
        result: 'second',
      });
    });

    it('a job with an interval runs once per cluster per interval, whichever process fires it', async () => {
      let runs = 0;
      const job = () => Promise.resolve(++runs);
      const every = { onceEverySeconds: 3600 };
      // Both workers' timers fire, one after the other and both at once: one run in the interval.
      const outcomes = [
        await a.get(ClusterLock).runExclusive('interval-job', job, every),
        await b.get(ClusterLock).runExclusive('interval-job', job, every),
        await a.get(ClusterLock).runExclusive('interval-job', job, every),
        ...(await Promise.all(
          [a, b, a, b].map((ctx) => ctx.get(ClusterLock).runExclusive('interval-job', job, every)),
        )),
      ];
      expect(runs).toBe(1);
      expect(outcomes.filter((o) => !o.skipped)).toEqual([{ skipped: false, result: 1 }]);
      // Another job has its own interval.
      expect(await b.get(ClusterLock).runExclusive('other-interval-job', job, every)).toEqual({
        skipped: false,
        result: 2,
      });
    });

    it('runs again, in any process, once the interval has passed', async () => {
      let runs = 0;
      const job = () => Promise.resolve(++runs);
      const every = { onceEverySeconds: 1 };
      expect(await a.get(ClusterLock).runExclusive('short-interval-job', job, every)).toMatchObject({
        skipped: false,
      });
      expect(await b.get(ClusterLock).runExclusive('short-interval-job', job, every)).toEqual({
        skipped: true,
      });
      // The wait limit only bounds the test; the claim is in database time.
      let next: { skipped: boolean } = { skipped: true };
      for (let i = 0; i < 100 && next.skipped; i++) {
        await new Promise((r) => setTimeout(r, 100));
        next = await b.get(ClusterLock).runExclusive('short-interval-job', job, every);
      }
      expect(next).toEqual({ skipped: false, result: 2 });
      expect(runs).toBe(2);
    });

    it('the daily document cleanup fired on two workers runs on one', async () => {
      const cleanups = jest.spyOn(DocumentMaintenanceService.prototype, 'cleanup');
      try {
        for (const ctx of [a, b, a, b]) await ctx.get(DocumentsScheduler).cleanup();
        expect(cleanups).toHaveBeenCalledTimes(1);
      } finally {
        cleanups.mockRestore();
      }
    });
  });

  it('the worker role claims jobs and runs schedulers without serving the API', () => {
    const role = a.get(ProcessRole);
    expect([role.servesApi, role.runsJobs, role.runsSchedulers]).toEqual([false, true, true]);
  });
});
