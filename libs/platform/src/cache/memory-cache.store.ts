import { LRUCache } from 'lru-cache';
import {
  CacheHealth,
  CacheStore,
  LeaseGrant,
  LeaseRequest,
  VersionedKey,
  VersionedRead,
  WindowCount,
} from './cache-store';

const ttlMs = (ttlSeconds: number) => Math.max(1, Math.round(ttlSeconds * 1000));

/**
 * In-process LRU used when no REDIS_URL is configured. Stores serialised copies, like Redis. Counters
 * and leases live outside the LRU (an eviction must not reset a limit) and are dropped once expired.
 */
export class MemoryCacheStore extends CacheStore {
  readonly backend = 'memory' as const;
  private readonly entries: LRUCache<string, string>;
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  /** Per semaphore key: holder -> lease expiry (ms since the epoch). */
  private readonly leases = new Map<string, Map<string, number>>();
  private writesSinceSweep = 0;

  constructor(maxEntries: number) {
    super();
    this.entries = new LRUCache<string, string>({ max: maxEntries, ttlAutopurge: false });
  }

  get<T>(key: string): Promise<T | undefined> {
    const raw = this.entries.get(key);
    return Promise.resolve(raw === undefined ? undefined : (JSON.parse(raw) as T));
  }

  set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    this.entries.set(key, JSON.stringify(value), { ttl: ttlMs(ttlSeconds) });
    return Promise.resolve();
  }

  expire(key: string, ttlSeconds: number): Promise<boolean> {
    const raw = this.entries.get(key);
    if (raw !== undefined) this.entries.set(key, raw, { ttl: ttlMs(ttlSeconds) });
    return Promise.resolve(raw !== undefined);
  }

  setIfAbsent<T>(key: string, value: T, ttlSeconds: number): Promise<T | undefined> {
    let raw = this.entries.get(key);
    if (raw === undefined) {
      raw = JSON.stringify(value);
      this.entries.set(key, raw, { ttl: ttlMs(ttlSeconds) });
    }
    return Promise.resolve(JSON.parse(raw) as T);
  }

  getVersioned<T>(versionKey: string, entryKey: VersionedKey): Promise<VersionedRead<T>> {
    const raw = this.entries.get(versionKey);
    const version: unknown = raw === undefined ? undefined : JSON.parse(raw);
    if (typeof version !== 'string') return Promise.resolve({});
    const entry = this.entries.get(`${entryKey.prefix}${version}${entryKey.suffix}`);
    return Promise.resolve({ version, value: entry === undefined ? undefined : (JSON.parse(entry) as T) });
  }

  delete(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.entries.delete(key);
      this.counters.delete(key);
      this.leases.delete(key);
    }
    return Promise.resolve();
  }

  increment(key: string, ttlSeconds?: number): Promise<number> {
    return Promise.resolve(this.countHit(key, ttlSeconds === undefined ? Infinity : ttlMs(ttlSeconds)).count);
  }

  incrementWindow(key: string, windowSeconds: number): Promise<WindowCount> {
    return Promise.resolve(this.countHit(key, ttlMs(windowSeconds)));
  }

  acquireLease(key: string, { holder, limit, leaseSeconds }: LeaseRequest): Promise<LeaseGrant> {
    const now = Date.now();
    const held = this.liveLeases(key, now);
    if (held.has(holder) || held.size < limit) {
      held.set(holder, now + ttlMs(leaseSeconds));
      this.leases.set(key, held);
      this.noteWrite();
      return Promise.resolve({ granted: true, held: held.size });
    }
    const earliest = Math.min(...held.values());
    return Promise.resolve({ granted: false, held: held.size, retryAfterMs: Math.max(0, earliest - now) });
  }

  renewLease(key: string, holder: string, leaseSeconds: number): Promise<boolean> {
    const now = Date.now();
    const held = this.liveLeases(key, now);
    if (!held.has(holder)) return Promise.resolve(false);
    held.set(holder, now + ttlMs(leaseSeconds));
    return Promise.resolve(true);
  }

  releaseLease(key: string, holder: string): Promise<void> {
    const held = this.leases.get(key);
    held?.delete(holder);
    if (held?.size === 0) this.leases.delete(key);
    return Promise.resolve();
  }

  countLeases(key: string): Promise<number> {
    return Promise.resolve(this.liveLeases(key, Date.now()).size);
  }

  health(): CacheHealth {
    return { backend: this.backend, available: true };
  }

  private countHit(key: string, windowMs: number): WindowCount {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.expiresAt <= now) {
      counter = { count: 0, expiresAt: now + windowMs };
      this.counters.set(key, counter);
      this.noteWrite();
    }
    counter.count++;
    const resetInMs = Number.isFinite(counter.expiresAt) ? counter.expiresAt - now : -1;
    return { count: counter.count, resetInMs };
  }

  /** The unexpired leases at `key` (expired ones removed); a new map when there are none. */
  private liveLeases(key: string, now: number): Map<string, number> {
    const held = this.leases.get(key);
    if (!held) return new Map();
    for (const [holder, expiresAt] of held) if (expiresAt <= now) held.delete(holder);
    if (held.size === 0) this.leases.delete(key);
    return held;
  }

  /** Expired counters and lease sets of keys nobody touches again are swept now and then. */
  private noteWrite(): void {
    if (++this.writesSinceSweep < 1000) return;
    this.writesSinceSweep = 0;
    const now = Date.now();
    for (const [key, counter] of this.counters) if (counter.expiresAt <= now) this.counters.delete(key);
    for (const key of [...this.leases.keys()]) this.liveLeases(key, now);
  }
}
