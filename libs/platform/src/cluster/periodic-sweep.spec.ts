import { currentDatabasePriority } from '../database/database-priority';
import { PeriodicSweep } from './periodic-sweep';

/** A sweep whose runs the test finishes by hand, recording the priority each ran at. */
function controlledWork() {
  const runs: Array<{ priority: string; finish: (n: number) => void; fail: (e: Error) => void }> = [];
  const work = () =>
    new Promise<number>((resolve, reject) =>
      runs.push({ priority: currentDatabasePriority(), finish: resolve, fail: reject }),
    );
  return { runs, work };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('PeriodicSweep', () => {
  afterEach(() => jest.useRealTimers());

  it('joins a sweep already running instead of starting a second, and starts afresh once it settled', async () => {
    const { runs, work } = controlledWork();
    const sweep = new PeriodicSweep(work, () => undefined);
    const first = sweep.run();
    const second = sweep.run();
    expect(runs).toHaveLength(1);
    runs[0].finish(3);
    expect(await Promise.all([first, second])).toEqual([3, 3]);
    const third = sweep.run();
    expect(runs).toHaveLength(2);
    runs[1].finish(0);
    expect(await third).toBe(0);
  });

  it('runs on every tick as background work, skipping ticks while a sweep is still running', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { runs, work } = controlledWork();
    const sweep = new PeriodicSweep(work, () => undefined);
    sweep.start(1000);
    expect(runs).toHaveLength(0);
    jest.advanceTimersByTime(1000);
    expect(runs.map((r) => r.priority)).toEqual(['background']);
    jest.advanceTimersByTime(3000); // three ticks while the first sweep runs
    expect(runs).toHaveLength(1);
    runs[0].finish(1);
    await settle();
    jest.advanceTimersByTime(1000);
    expect(runs).toHaveLength(2);
    runs[1].finish(0);
    await sweep.stop();
  });

  it('reports a failed sweep and tries again on the next tick', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { runs, work } = controlledWork();
    const failures: string[] = [];
    const sweep = new PeriodicSweep(work, (error) => failures.push(error.message));
    sweep.start(500);
    jest.advanceTimersByTime(500);
    runs[0].fail(new Error('database unreachable'));
    await settle();
    expect(failures).toEqual(['database unreachable']);
    jest.advanceTimersByTime(500);
    expect(runs).toHaveLength(2);
    runs[1].finish(0);
    await sweep.stop();
  });

  it('stop ends the ticks and resolves only once the sweep in flight settled, even a failing one', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { runs, work } = controlledWork();
    const sweep = new PeriodicSweep(work, () => undefined);
    sweep.start(100);
    jest.advanceTimersByTime(100);
    let stopped = false;
    const stopping = sweep.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    runs[0].fail(new Error('cut short'));
    await stopping;
    expect(stopped).toBe(true);
    jest.advanceTimersByTime(1000);
    expect(runs).toHaveLength(1);
  });

  it('does not keep the process alive with its timer', () => {
    const intervals: NodeJS.Timeout[] = [];
    const real = global.setInterval;
    const spy = jest.spyOn(global, 'setInterval').mockImplementation(((fn: () => void, ms: number) => {
      const timer = real(fn, ms);
      intervals.push(timer);
      return timer;
    }) as typeof setInterval);
    try {
      const sweep = new PeriodicSweep(
        () => Promise.resolve(0),
        () => undefined,
      );
      sweep.start(60_000);
      expect(intervals).toHaveLength(1);
      expect(intervals[0].hasRef()).toBe(false);
      void sweep.stop();
    } finally {
      spy.mockRestore();
    }
  });
});
