import { ClusterLock, ProcessRole } from '@app/platform';
import { startTestContext, TestContext, testBackend } from '@test/support';

describe(`scheduled jobs run once per cluster (${testBackend()})`, () => {
  let a: TestContext;
  let b: TestContext | undefined;
  beforeAll(async () => {
    a = await startTestContext([], { APP_ROLE: 'worker' });
    // Two processes on one database: only the native backend can share it.
    if (testBackend() === 'native') b = await startTestContext([], { APP_ROLE: 'worker' }, a.database);
  });
  afterAll(async () => {
    await b?.close();
    await a.close();
  });

  it('a second process skips a job another one is running, and runs it once the first is done', async () => {
    if (!b) return; // embedded: one process per data directory, the lock is not needed
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

  it('the worker role claims jobs and runs schedulers without serving the API', () => {
    const role = a.get(ProcessRole);
    expect([role.servesApi, role.runsJobs, role.runsSchedulers]).toEqual([false, true, true]);
  });
});
