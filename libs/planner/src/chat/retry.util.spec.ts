import { RetriesExhausted, withRetries } from './retry.util';

describe('withRetries', () => {
  it('backs off 1 s then 2 s and returns the first success', async () => {
    const delays: number[] = [];
    let calls = 0;
    const outcome = await withRetries(
      () => (++calls < 3 ? Promise.reject(new Error(`fail ${calls}`)) : Promise.resolve('ok')),
      { retries: 2, baseDelayMs: 1000, sleep: (ms) => (delays.push(ms), Promise.resolve()) },
    );
    expect(outcome).toEqual({ value: 'ok', attempts: 3 });
    expect(delays).toEqual([1000, 2000]);
  });

  it('gives up after the retries with the last error', async () => {
    const delays: number[] = [];
    const failing = withRetries(() => Promise.reject(new Error('down')), {
      retries: 1,
      baseDelayMs: 1000,
      sleep: (ms) => (delays.push(ms), Promise.resolve()),
    });
    await expect(failing).rejects.toBeInstanceOf(RetriesExhausted);
    await expect(failing).rejects.toMatchObject({ message: 'down', attempts: 2 });
    expect(delays).toEqual([1000]);
  });

  it('does not retry errors the predicate calls permanent', async () => {
    let calls = 0;
    const failing = withRetries(() => (calls++, Promise.reject(new Error('bad query'))), {
      retries: 2,
      baseDelayMs: 1,
      retryable: (error) => error.message !== 'bad query',
    });
    await expect(failing).rejects.toMatchObject({ attempts: 1 });
    expect(calls).toBe(1);
  });
});
