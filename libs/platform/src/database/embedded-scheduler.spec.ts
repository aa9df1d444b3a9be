import { beginRequest, runInBackground } from './database-priority';
import { EmbeddedScheduler, EmbeddedSchedulerOptions, LeaseRelease } from './embedded-scheduler';

/** Acquires a lease, records `name` when granted, holds it until the returned release is called. */
function queue(scheduler: EmbeddedScheduler, order: string[], name: string, background = false) {
  const acquire = () => scheduler.acquire();
  const lease = (background ? runInBackground(acquire) : acquire()).then((release) => {
    order.push(name);
    return release;
  });
  return lease;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EmbeddedScheduler', () => {
  it('serves a foreground lease before background leases queued ahead of it', async () => {
    const scheduler = new EmbeddedScheduler({ quietMs: 0 });
    const order: string[] = [];
    const holder = await queue(scheduler, order, 'background holder', true);
    const b1 = queue(scheduler, order, 'background 1', true);
    const b2 = queue(scheduler, order, 'background 2', true);
    const f = queue(scheduler, order, 'foreground');
    holder();
    (await f)();
    (await b1)();
    (await b2)();
    expect(order).toEqual(['background holder', 'foreground', 'background 1', 'background 2']);
  });

  it('keeps the connection for foreground work until it has been quiet for quietMs', async () => {
    const scheduler = new EmbeddedScheduler({ quietMs: 50 });
    const order: string[] = [];
    const first = await queue(scheduler, order, 'request statement 1');
    const background = queue(scheduler, order, 'background', true);
    first();
    // The request's next statement, issued after its previous one returned (a later turn of the loop).
    await settle();
    const second = queue(scheduler, order, 'request statement 2');
    (await second)();
    (await background)();
    expect(order).toEqual(['request statement 1', 'request statement 2', 'background']);
  });

  it('does not starve background work: it goes first after maxForegroundBypass foreground leases', async () => {
    const scheduler = new EmbeddedScheduler({
      quietMs: 0,
      maxForegroundBypass: 3,
      minBackgroundWaitMs: 1e9,
      maxBackgroundWaitMs: 1e9,
    });
    const order: string[] = [];
    const holder = await queue(scheduler, order, 'f0');
    const background = queue(scheduler, order, 'background', true);
    const foreground = Array.from({ length: 6 }, (_, i) => queue(scheduler, order, `f${i + 1}`));
    holder();
    for (let i = 0; i < 3; i++) (await foreground[i])();
    (await background)();
    for (let i = 3; i < 6; i++) (await foreground[i])();
    expect(order).toEqual(['f0', 'f1', 'f2', 'f3', 'background', 'f4', 'f5', 'f6']);
    expect(scheduler.stats).toMatchObject({
      agedBackgroundLeases: 1,
      backgroundLeases: 1,
      foregroundLeases: 7,
    });
  });

  it('hands out one lease at a time and ignores a second release of the same lease', async () => {
    const scheduler = new EmbeddedScheduler({ quietMs: 0 });
    const order: string[] = [];
    const first = await queue(scheduler, order, 'first');
    const second = queue(scheduler, order, 'second');
    const third = queue(scheduler, order, 'third');
    await settle();
    expect(order).toEqual(['first']);
    first();
    first();
    const release: LeaseRelease = await second;
    await settle();
    expect(order).toEqual(['first', 'second']);
    release();
    (await third)();
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('fails a waiter that never gets the connection like a pool checkout that timed out', async () => {
    const scheduler = new EmbeddedScheduler({ timeoutMs: 20 });
    const held = await scheduler.acquire();
    await expect(scheduler.acquire()).rejects.toThrow(/timeout exceeded when trying to connect/);
    held();
    // The timed-out waiter left the queue: the next one gets the connection.
    (await scheduler.acquire())();
    expect(scheduler.stats.foregroundWaiting).toBe(0);
  });

  describe('requests in progress', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    /** Runs `work` inside a request in progress (beginRequest), with a scheduler of `options` (quietMs 0). */
    async function inRequest(
      options: Partial<EmbeddedSchedulerOptions>,
      work: (scheduler: EmbeddedScheduler, order: string[], end: () => void) => Promise<void>,
    ) {
      const end = beginRequest();
      try {
        await work(new EmbeddedScheduler({ quietMs: 0, ...options }), [], end);
      } finally {
        end();
      }
    }

    it("keeps background work off the connection between a request's statements, however far apart", () =>
      inRequest({ requestIdleMs: 1e9, minBackgroundWaitMs: 1e9 }, async (scheduler, order, end) => {
        (await queue(scheduler, order, 'request statement 1'))();
        const background = queue(scheduler, order, 'background', true);
        // Longer than any quiet window: the request is still in progress (authorising, planning).
        await sleep(30);
        (await queue(scheduler, order, 'request statement 2'))();
        expect(order).toEqual(['request statement 1', 'request statement 2']);
        end();
        (await background)();
        expect(order).toEqual(['request statement 1', 'request statement 2', 'background']);
      }));

    it('lets background work go once the request has not touched the connection for requestIdleMs', () =>
      inRequest({ requestIdleMs: 20, minBackgroundWaitMs: 1e9 }, async (scheduler, order) => {
        (await queue(scheduler, order, 'request statement'))();
        // A long stream or computation: the request stays open without using the database.
        (await queue(scheduler, order, 'background', true))();
        expect(order).toEqual(['request statement', 'background']);
      }));

    it('still gives background work its share while a request keeps the connection', () =>
      inRequest(
        { requestIdleMs: 1e9, minBackgroundWaitMs: 20, maxBackgroundWaitMs: 20 },
        async (scheduler, order) => {
          (await queue(scheduler, order, 'request statement'))();
          (await queue(scheduler, order, 'background', true))();
          expect(order).toEqual(['request statement', 'background']);
          expect(scheduler.stats.agedBackgroundLeases).toBe(1);
        },
      ));
  });
});
