import { requestActivity } from './database-priority';

/**
 * How long one statement of background work should hold the embedded database: a request that arrives
 * while it runs waits for it (EmbeddedScheduler serves the request next), so this is about what
 * background work adds to a request's latency.
 */
export const BACKGROUND_STATEMENT_TARGET_MS = 20;

export interface BatchSizerOptions {
  /** Aim for statements of about this long; Infinity: always `max` (no reason to split). */
  targetMs: number;
  min: number;
  max: number;
  /**
   * The floor while requests are in progress or began within REQUEST_RECENT_MS (default `min`): a request
   * that arrives waits for the statement that holds the connection, so while requests come, background
   * work takes the per-statement overhead of smaller batches rather than make them wait for large ones.
   */
  requestMin?: number;
}

/** Requests that began this recently (ms) count as still coming (BatchSizerOptions.requestMin). */
export const REQUEST_RECENT_MS = 1000;

/**
 * Sizes successive batches of idempotent background work (rows, or steps of a time range) so that
 * each statement takes about `targetMs`: after each batch the size is scaled by target / measured,
 * at most doubling and at least quartering per step, within [min, max]. `min` matters: on a machine
 * short of CPU no size meets the target, and below some size a statement's fixed cost (round trips,
 * planning) is most of it, so the work would take many times longer for no gain to anyone.
 */
export class BatchSizer {
  private size: number;

  constructor(
    initial: number,
    private readonly options: BatchSizerOptions,
  ) {
    this.size = Number.isFinite(options.targetMs) ? this.clamp(initial) : options.max;
  }

  /** The size of the next batch. */
  get next(): number {
    return this.clamp(this.size);
  }

  /** Runs one batch of `size` (<= next) and adapts the next size to how long it took. */
  async run<T>(size: number, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.record(size, performance.now() - started);
    return result;
  }

  /** Adapts the next size to a batch of `size` that took `ms`. */
  record(size: number, ms: number): void {
    if (!Number.isFinite(this.options.targetMs)) return;
    const scale = Math.min(2, Math.max(0.25, this.options.targetMs / Math.max(ms, 0.5)));
    this.size = this.clamp(Math.round(size * scale));
  }

  private clamp(size: number): number {
    return Math.min(this.options.max, Math.max(this.floor(), Math.floor(size)));
  }

  private floor(): number {
    const { min, requestMin } = this.options;
    if (requestMin === undefined || requestMin >= min) return min;
    const { inFlight, lastStart } = requestActivity();
    return inFlight > 0 || performance.now() - lastStart < REQUEST_RECENT_MS ? Math.max(1, requestMin) : min;
  }
}

/** Runs `work` over `items` in consecutive batches sized by `sizer`. */
export async function forEachBatch<T>(
  items: readonly T[],
  sizer: BatchSizer,
  work: (batch: T[]) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < items.length;) {
    const batch = items.slice(start, start + sizer.next);
    await sizer.run(batch.length, () => work(batch));
    start += batch.length;
  }
}
