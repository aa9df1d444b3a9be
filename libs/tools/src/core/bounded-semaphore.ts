/**
 * A counting semaphore whose waiters give up after a bound (or when their signal aborts). A released slot goes
 * straight to the first waiter, so a caller arriving in between cannot push the count past the limit.
 */
export class BoundedSemaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function, or with null when no slot freed up within `maxWaitMs`. */
  async acquire(maxWaitMs = Infinity, signal?: AbortSignal): Promise<(() => void) | null> {
    if (this.active >= this.limit) {
      const got = await new Promise<boolean>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const wake = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(true);
        };
        const giveUp = () => {
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(false);
        };
        this.waiting.push(wake);
        if (Number.isFinite(maxWaitMs)) timer = setTimeout(giveUp, Math.max(0, maxWaitMs));
        signal?.addEventListener('abort', giveUp, { once: true });
      });
      if (!got) return null;
      // The releasing holder handed its slot over (active was not decremented), so nobody can take it between.
    } else {
      this.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
