import { BoundedSemaphore } from './bounded-semaphore';

describe('BoundedSemaphore', () => {
  it('admits up to the limit and queues the rest in arrival order', async () => {
    const semaphore = new BoundedSemaphore(2);
    const a = await semaphore.acquire();
    const b = await semaphore.acquire();
    const order: string[] = [];
    const c = semaphore.acquire().then((release) => (order.push('c'), release));
    const d = semaphore.acquire().then((release) => (order.push('d'), release));
    expect(semaphore.running).toBe(2);
    expect(semaphore.queued).toBe(2);
    a!();
    b!();
    (await c)!();
    (await d)!();
    expect(order).toEqual(['c', 'd']);
    expect(semaphore.running).toBe(0);
  });

  it('never exceeds the limit when a newcomer arrives while a slot is handed over', async () => {
    const semaphore = new BoundedSemaphore(1);
    const first = await semaphore.acquire();
    const waiter = semaphore.acquire();
    first!();
    const newcomer = semaphore.acquire(0);
    expect(await newcomer).toBeNull();
    expect(semaphore.running).toBe(1);
    (await waiter)!();
    expect(semaphore.running).toBe(0);
  });

  it('gives up after the bound or when the signal aborts, and a release is idempotent', async () => {
    const semaphore = new BoundedSemaphore(1);
    const held = await semaphore.acquire();
    expect(await semaphore.acquire(10)).toBeNull();
    const controller = new AbortController();
    const aborted = semaphore.acquire(Infinity, controller.signal);
    controller.abort();
    expect(await aborted).toBeNull();
    expect(semaphore.queued).toBe(0);
    held!();
    held!();
    expect(semaphore.running).toBe(0);
  });
});
