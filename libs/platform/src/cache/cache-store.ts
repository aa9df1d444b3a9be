export type CacheBackend = 'redis' | 'memory';

/** The entry read by `getVersioned`: `${prefix}${version}${suffix}`. */
export interface VersionedKey {
  prefix: string;
  suffix: string;
}

export interface VersionedRead<T> {
  /** The version stored at the version key; undefined when absent or the cache is unavailable. */
  version?: string;
  /** The entry under that version; undefined when there is no version or no entry. */
  value?: T;
}

/** A fixed-window counter: the first increment starts the window, which ends `resetInMs` from now. */
export interface WindowCount {
  count: number;
  resetInMs: number;
}

/** One holder's claim on a slot of a lease-based counting semaphore. */
export interface LeaseRequest {
  /** Unique per holder (a run id, a session id): acquiring again with the same id renews its slot. */
  holder: string;
  /** Slots the semaphore has; a holder already inside always gets its slot back. */
  limit: number;
  /** The slot frees itself this long after the last acquire or renewal (a crashed holder's slot too). */
  leaseSeconds: number;
}

export type LeaseGrant =
  | { granted: true; held: number }
  /** `retryAfterMs`: when the earliest lease expires, i.e. when a slot frees up at the latest. */
  | { granted: false; held: number; retryAfterMs: number };

export interface CacheHealth {
  backend: CacheBackend;
  available: boolean;
  lastError?: string;
}

/**
 * The cache port every library uses. Adapters never throw for an unavailable cache: reads miss,
 * writes are dropped, and `health()` says so. Values are JSON-serialisable and come back as copies.
 */
export abstract class CacheStore {
  private readonly inflight = new Map<string, Promise<unknown>>();

  abstract readonly backend: CacheBackend;
  abstract get<T>(key: string): Promise<T | undefined>;
  abstract set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  abstract delete(...keys: string[]): Promise<void>;
  /**
   * Gives an existing entry a new time to live; false when there is none. Never creates one, so
   * renewing a record cannot bring back one that a concurrent delete removed.
   */
  abstract expire(key: string, ttlSeconds: number): Promise<boolean | undefined>;
  /**
   * Stores `value` only if nothing is stored at `key`, and returns what is stored there now (the
   * winner's value when two callers race); undefined when the cache is unavailable.
   */
  abstract setIfAbsent<T>(key: string, value: T, ttlSeconds: number): Promise<T | undefined>;
  /**
   * Reads the version (a string) stored at `versionKey`, then the entry keyed by that version, as one
   * operation: one round trip on Redis.
   */
  abstract getVersioned<T>(versionKey: string, entryKey: VersionedKey): Promise<VersionedRead<T>>;
  /**
   * Atomically adds one and returns the new value; undefined when the cache is unavailable. With
   * `ttlSeconds`, the first increment starts a fixed window and the counter disappears when it ends.
   * Counters and leases are read only through these methods (in memory they are kept apart from
   * cached values, so an LRU eviction never resets a limit).
   */
  abstract increment(key: string, ttlSeconds?: number): Promise<number | undefined>;
  /** `increment` with a window, also returning how long the window has left. */
  abstract incrementWindow(key: string, windowSeconds: number): Promise<WindowCount | undefined>;
  /**
   * Takes a slot of the counting semaphore at `key` for `request.holder` if fewer than `limit`
   * unexpired leases are held (or the holder already holds one, which is then renewed). Expired leases
   * are dropped first, so a holder that never releases stops counting after its lease. Atomic: two
   * racing callers never both take the last slot.
   */
  abstract acquireLease(key: string, request: LeaseRequest): Promise<LeaseGrant | undefined>;
  /** Extends a held lease; false when the holder no longer holds one (released or expired). */
  abstract renewLease(key: string, holder: string, leaseSeconds: number): Promise<boolean | undefined>;
  abstract releaseLease(key: string, holder: string): Promise<void>;
  /** Unexpired leases at `key`. */
  abstract countLeases(key: string): Promise<number | undefined>;
  abstract health(): CacheHealth;

  /**
   * Cached value or the computed one. Identical concurrent misses in this process share one
   * computation; a failing computation is not cached.
   */
  async getOrCompute<T>(
    key: string,
    ttlSeconds: number,
    compute: () => Promise<T>,
  ): Promise<{ value: T; hit: boolean }> {
    const cached = await this.get<T>(key);
    if (cached !== undefined) return { value: cached, hit: true };
    const pending = this.inflight.get(key) as Promise<T> | undefined;
    if (pending) return { value: await pending, hit: false };
    const computation = (async () => {
      const value = await compute();
      if (value !== undefined) await this.set(key, value, ttlSeconds);
      return value;
    })();
    this.inflight.set(key, computation);
    try {
      return { value: await computation, hit: false };
    } finally {
      this.inflight.delete(key);
    }
  }
}
