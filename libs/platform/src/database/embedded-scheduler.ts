import type { DataSource } from 'typeorm';
import {
  currentDatabasePriority,
  DatabasePriority,
  onRequestEnd,
  requestActivity,
} from './database-priority';

export interface EmbeddedSchedulerOptions {
  /**
   * How long the connection must have been free of foreground work before background work gets it:
   * a request's next statement usually follows its previous one within a millisecond or two, and it
   * should not find a background transaction in its way.
   */
  quietMs: number;
  /**
   * While a request is in progress (`beginRequest`: between its arrival and its response) background work
   * waits as if the request's statements were back to back, as long as the request began or held the
   * connection within the last `requestIdleMs`: a request that has not touched the database for that long
   * (a long stream, a slow computation) no longer keeps background work out. The share bound still applies.
   */
  requestIdleMs: number;
  /**
   * Share bound in time: a background waiter goes before queued foreground work once it has waited
   * `backgroundShareFactor` times the typical background lease (a moving average), clamped to
   * [`minBackgroundWaitMs`, `maxBackgroundWaitMs`]. So while both want the connection, background work
   * keeps about 1 / (factor + 1) of it however slow the machine is: a fixed bound (250 ms, tried first)
   * let seconds-long leases of a loaded machine go ahead of requests every 250 ms, and without a time
   * bound a stream of requests (each a few statements under 10 ms apart) left the demo load ~15%.
   */
  backgroundShareFactor: number;
  minBackgroundWaitMs: number;
  maxBackgroundWaitMs: number;
  /** Starvation bound in turns: at most this many foreground leases pass a waiting background one. */
  maxForegroundBypass: number;
  /** A waiter still without the connection after this long fails like a pool checkout that timed out. */
  timeoutMs: number;
}

export const DEFAULT_EMBEDDED_SCHEDULER_OPTIONS: EmbeddedSchedulerOptions = {
  quietMs: 10,
  requestIdleMs: 100,
  backgroundShareFactor: 3,
  minBackgroundWaitMs: 50,
  maxBackgroundWaitMs: 5_000,
  maxForegroundBypass: 32,
  timeoutMs: 60_000,
};

/** Releases a lease; calling it again does nothing. */
export type LeaseRelease = () => void;

interface Waiter {
  priority: DatabasePriority;
  enqueuedAt: number;
  /** Foreground leases granted while this (background) waiter was queued. */
  bypassed: number;
  /** How long foreground work kept this (background) waiter out: its leases and quiet windows, in ms. */
  excludedMs: number;
  grant: (release: LeaseRelease) => void;
  timer?: NodeJS.Timeout;
}

export interface EmbeddedSchedulerStats {
  foregroundLeases: number;
  backgroundLeases: number;
  /** Background leases granted ahead of queued foreground work by a starvation bound. */
  agedBackgroundLeases: number;
  /** Foreground leases granted while background work was waiting: the times background work gave way. */
  yields: number;
  /** The longest a background lease was held (what a request may have waited behind), in ms. */
  longestBackgroundHoldMs: number;
  foregroundWaiting: number;
  backgroundWaiting: number;
  /** Over the last RECENT_LEASES leases of each kind: how long a foreground lease waited for the connection. */
  recentForegroundWaitMs: LeaseTimes;
  /** Over the last RECENT_LEASES background leases: how long each held the connection. */
  recentBackgroundHoldMs: LeaseTimes;
}

/** Percentiles of recent lease times, in ms (rounded to 0.1). */
export interface LeaseTimes {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** How many recent leases of each kind the percentiles in the stats cover. */
const RECENT_LEASES = 1024;

/** A fixed-size window of the latest samples. */
class RecentTimes {
  private readonly samples: number[] = [];
  private next = 0;

  add(ms: number): void {
    if (this.samples.length < RECENT_LEASES) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % RECENT_LEASES;
  }

  summary(): LeaseTimes {
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) =>
      sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return { n: sorted.length, p50: round(at(0.5)), p95: round(at(0.95)), max: round(at(1)) };
  }

  clear(): void {
    this.samples.length = 0;
    this.next = 0;
  }
}

/**
 * The order in which work gets the embedded database's one connection. PGlite runs one statement
 * at a time, and the application's pool holds its single connection (data-source-options.ts), so a
 * statement's wait is the sum of what runs before it. Every checkout of that connection (a statement,
 * or a whole transaction through a query runner) takes a lease here first:
 * - foreground leases (requests) go before background ones (ingestion, diff indexing, the demo load,
 *   scheduled jobs: `runInBackground`), FIFO within each class;
 * - background work gets the connection only after it has been free of foreground work for `quietMs`,
 *   so the statements of one request follow each other without a background transaction between them;
 * - no starvation, and a share: a background waiter is served next once it has watched
 *   `maxForegroundBypass` foreground leases go first, or waited three times its typical lease
 *   (`backgroundShareFactor`), so it keeps about a quarter of a contended connection.
 * A foreground request therefore waits for at most the one background statement or transaction that
 * holds the connection when it arrives, so background work keeps its transactions short (bounded
 * batches) and yields between them simply by asking for the next lease.
 */
export class EmbeddedScheduler {
  private readonly options: EmbeddedSchedulerOptions;
  private held = false;
  private readonly foreground: Waiter[] = [];
  private readonly background: Waiter[] = [];
  /** When the connection was last held by foreground work (its release), or -Infinity. */
  private foregroundLastSeen = Number.NEGATIVE_INFINITY;
  private quietTimer?: NodeJS.Timeout;
  /** Subscribed while waiting background work is kept out by a request in progress: dispatch when one ends. */
  private stopWaitingForRequests?: () => void;
  /** Since when waiting background work has been held back by the quiet window, if it is. */
  private quietSince: number | undefined;
  /** Moving average of how long background leases are held (ms): the unit of the share bound. */
  private typicalBackgroundHoldMs = 20;
  private readonly counts = {
    foregroundLeases: 0,
    backgroundLeases: 0,
    agedBackgroundLeases: 0,
    yields: 0,
    longestBackgroundHoldMs: 0,
  };
  private readonly foregroundWaits = new RecentTimes();
  private readonly backgroundHolds = new RecentTimes();

  constructor(options: Partial<EmbeddedSchedulerOptions> = {}) {
    this.options = { ...DEFAULT_EMBEDDED_SCHEDULER_OPTIONS, ...options };
  }

  get stats(): EmbeddedSchedulerStats {
    return {
      ...this.counts,
      foregroundWaiting: this.foreground.length,
      backgroundWaiting: this.background.length,
      recentForegroundWaitMs: this.foregroundWaits.summary(),
      recentBackgroundHoldMs: this.backgroundHolds.summary(),
    };
  }

  /** Starts the recent-lease percentiles afresh (a bench, between its phases). */
  clearRecent(): void {
    this.foregroundWaits.clear();
    this.backgroundHolds.clear();
  }

  /** Resolves with the release of the connection's lease, in priority order (see the class). */
  acquire(priority: DatabasePriority = currentDatabasePriority()): Promise<LeaseRelease> {
    return new Promise<LeaseRelease>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        enqueuedAt: performance.now(),
        bypassed: 0,
        excludedMs: 0,
        grant: resolve,
      };
      const queue = priority === 'foreground' ? this.foreground : this.background;
      waiter.timer = setTimeout(() => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        // The wording of node-postgres's pool, which the database error mapping answers with a 503.
        reject(new Error('timeout exceeded when trying to connect (embedded database busy)'));
      }, this.options.timeoutMs);
      waiter.timer.unref?.();
      queue.push(waiter);
      this.dispatch();
    });
  }

  /** Runs `work` holding a lease of `priority` (or the current context's). */
  async run<T>(work: () => Promise<T>, priority?: DatabasePriority): Promise<T> {
    const release = await this.acquire(priority);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private dispatch(): void {
    if (this.quietTimer) {
      clearTimeout(this.quietTimer);
      this.quietTimer = undefined;
    }
    this.stopWaitingForRequests?.();
    this.stopWaitingForRequests = undefined;
    if (this.held) return;
    const oldest = this.background[0];
    const now = performance.now();
    if (
      oldest &&
      this.foreground.length > 0 &&
      (oldest.bypassed >= this.options.maxForegroundBypass ||
        oldest.excludedMs >= this.backgroundWaitBoundMs())
    ) {
      this.counts.agedBackgroundLeases++;
      return this.grant(this.background.shift()!);
    }
    if (this.foreground.length > 0) {
      if (oldest) this.counts.yields++;
      for (const waiter of this.background) waiter.bypassed++;
      return this.grant(this.foreground.shift()!);
    }
    if (!oldest) return;
    const quietFor = now - this.foregroundLastSeen;
    const requestFor = this.requestKeepsConnectionFor(now);
    if (quietFor >= this.options.quietMs && requestFor <= 0) return this.grant(this.background.shift()!);
    this.quietSince ??= now;
    let recheckIn = this.options.quietMs - quietFor;
    if (requestFor > 0) {
      // A request in progress keeps the connection, within the share bound (its quiet time counts).
      const owed = this.backgroundWaitBoundMs() - (oldest.excludedMs + now - this.quietSince);
      if (owed <= 0) {
        this.counts.agedBackgroundLeases++;
        return this.grant(this.background.shift()!);
      }
      recheckIn = Math.max(recheckIn, Math.min(requestFor, owed));
      this.stopWaitingForRequests = onRequestEnd(() => this.dispatch());
    }
    this.quietTimer = setTimeout(() => this.dispatch(), Math.max(1, Math.ceil(recheckIn)));
  }

  /** How much longer requests in progress keep background work out (<= 0: they do not). */
  private requestKeepsConnectionFor(now: number): number {
    const { inFlight, lastStart } = requestActivity();
    if (inFlight === 0) return 0;
    return Math.max(lastStart, this.foregroundLastSeen) + this.options.requestIdleMs - now;
  }

  /** How long a background waiter may wait while foreground work goes first (the share bound). */
  private backgroundWaitBoundMs(): number {
    const { backgroundShareFactor, minBackgroundWaitMs, maxBackgroundWaitMs } = this.options;
    return Math.min(
      maxBackgroundWaitMs,
      Math.max(minBackgroundWaitMs, backgroundShareFactor * this.typicalBackgroundHoldMs),
    );
  }

  /** Adds time foreground work kept the waiting background work out. */
  private exclude(ms: number): void {
    for (const waiter of this.background) waiter.excludedMs += ms;
  }

  private grant(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    this.held = true;
    if (this.quietSince !== undefined) {
      this.exclude(performance.now() - this.quietSince);
      this.quietSince = undefined;
    }
    const grantedAt = performance.now();
    if (waiter.priority === 'foreground') {
      this.counts.foregroundLeases++;
      this.foregroundWaits.add(grantedAt - waiter.enqueuedAt);
    } else this.counts.backgroundLeases++;
    let released = false;
    waiter.grant(() => {
      if (released) return;
      released = true;
      this.held = false;
      const now = performance.now();
      if (waiter.priority === 'foreground') {
        this.foregroundLastSeen = now;
        this.exclude(now - grantedAt);
      } else {
        const held = now - grantedAt;
        this.backgroundHolds.add(held);
        this.typicalBackgroundHoldMs = 0.8 * this.typicalBackgroundHoldMs + 0.2 * held;
        this.counts.longestBackgroundHoldMs = Math.max(this.counts.longestBackgroundHoldMs, Math.round(held));
      }
      this.dispatch();
    });
  }
}

const attached = new WeakMap<DataSource, EmbeddedScheduler>();

/** Records that `dataSource`'s checkouts go through `scheduler` (applyConnectionScope does). */
export function attachScheduler(dataSource: DataSource, scheduler: EmbeddedScheduler): void {
  attached.set(dataSource, scheduler);
}

/** The scheduler in front of `dataSource`'s connection: embedded only, otherwise undefined. */
export function schedulerOf(dataSource: DataSource): EmbeddedScheduler | undefined {
  return attached.get(dataSource);
}
