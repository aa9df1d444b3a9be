import { retry } from './retry.util';

function recorder() {
  const delays: number[] = [];
  return { delays, sleep: (ms: number) => (delays.push(ms), Promise.resolve()) };
}

describe('retry', () => {
  it('backs off base, then factor x base, and returns the first success', async () => {
    const { delays, sleep } = recorder();
    const attempts: number[] = [];
    const value = await retry(
      (attempt) => (
        attempts.push(attempt),
        attempt < 3 ? Promise.reject(new Error('x')) : Promise.resolve('ok')
      ),
      { retries: 2, baseDelayMs: 1000, sleep },
    );
    expect(value).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
    expect(delays).toEqual([1000, 2000]);
  });

  it('throws the last error unchanged once the retries are spent', async () => {
    const { delays, sleep } = recorder();
    let calls = 0;
    const failing = retry(() => Promise.reject(new Error(`down ${++calls}`)), {
      retries: 1,
      baseDelayMs: 10,
      factor: 3,
      sleep,
    });
    await expect(failing).rejects.toThrow('down 2');
    expect(delays).toEqual([10]);
  });

  it('does not retry errors the predicate calls permanent', async () => {
    let calls = 0;
    const failing = retry(() => (calls++, Promise.reject(new Error('bad query'))), {
      retries: 2,
      baseDelayMs: 1,
      isRetryable: (error) => (error as Error).message !== 'bad query',
    });
    await expect(failing).rejects.toThrow('bad query');
    expect(calls).toBe(1);
  });

  it('keeps jittered waits within the spread and reports each retry', async () => {
    const { delays, sleep } = recorder();
    const retries: number[] = [];
    await expect(
      retry(() => Promise.reject(new Error('x')), {
        retries: 3,
        baseDelayMs: 100,
        jitter: 0.2,
        sleep,
        onRetry: ({ attempt }) => retries.push(attempt),
      }),
    ).rejects.toThrow('x');
    expect(retries).toEqual([1, 2, 3]);
    [100, 200, 400].forEach((base, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(base * 0.8);
      expect(delays[i]).toBeLessThanOrEqual(base * 1.2);
    });
  });

  it('uses the wait the failure asks for instead of the backoff', async () => {
    const { delays, sleep } = recorder();
    const failure = Object.assign(new Error('busy'), { waitMs: 7000 });
    await expect(
      retry(() => Promise.reject(failure), {
        retries: 1,
        baseDelayMs: 100,
        waitOf: (error) => (error as { waitMs?: number }).waitMs,
        sleep,
      }),
    ).rejects.toBe(failure);
    expect(delays).toEqual([7000]);
  });

  it('stops retrying once the signal aborts', async () => {
    const controller = new AbortController();
    let calls = 0;
    const failing = retry(() => (calls++, controller.abort(), Promise.reject(new Error('aborted'))), {
      retries: 5,
      baseDelayMs: 1,
      signal: controller.signal,
    });
    await expect(failing).rejects.toThrow('aborted');
    expect(calls).toBe(1);
  });
});
