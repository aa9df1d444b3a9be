import { LRUCache } from 'lru-cache';
import { CacheHealth, CacheStore, VersionedKey, VersionedRead } from './cache-store';

const ttlMs = (ttlSeconds: number) => Math.max(1, Math.round(ttlSeconds * 1000));

/** In-process LRU used when no REDIS_URL is configured. Stores serialised copies, like Redis. */
export class MemoryCacheStore extends CacheStore {
  readonly backend = 'memory' as const;
  private readonly entries: LRUCache<string, string>;

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
    for (const key of keys) this.entries.delete(key);
    return Promise.resolve();
  }

  increment(key: string): Promise<number> {
    const raw = this.entries.get(key);
    const next = (raw === undefined ? 0 : Number(JSON.parse(raw))) + 1;
    this.entries.set(key, JSON.stringify(next), { ttl: 0 });
    return Promise.resolve(next);
  }

  health(): CacheHealth {
    return { backend: this.backend, available: true };
  }
}
