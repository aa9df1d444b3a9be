import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { CacheHealth, CacheStore, VersionedKey, VersionedRead } from './cache-store';

export interface RedisCacheOptions {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
}

// The entry key is built inside the script, so it is not declared in KEYS: fine on one Redis, not
// on Redis Cluster unless both keys hash to the same slot.
const GET_VERSIONED_LUA = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {false, false} end
local ok, version = pcall(cjson.decode, raw)
if not ok or type(version) ~= 'string' then return {false, false} end
return {version, redis.call('GET', ARGV[1] .. version .. ARGV[2])}
`;

const SET_IF_ABSENT_LUA = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
`;

interface ScriptedRedis extends Redis {
  opsGetVersioned(
    versionKey: string,
    entryKeyPrefix: string,
    entryKeySuffix: string,
  ): Promise<[string | null, string | null]>;
  opsSetIfAbsent(key: string, value: string, ttlMs: number): Promise<string>;
}

const ttlMs = (ttlSeconds: number) => Math.max(1, Math.round(ttlSeconds * 1000));

/**
 * Redis adapter. No offline queue and a command timeout, so a slow or dead Redis costs a request at
 * most `commandTimeoutMs`; failures degrade to cache misses with one warning per outage.
 */
export class RedisCacheStore extends CacheStore {
  readonly backend = 'redis' as const;
  private readonly logger = new Logger(RedisCacheStore.name);
  private readonly client: ScriptedRedis;
  private readonly keyPrefix: string;
  private available = false;
  private outageReported = false;
  private lastError?: string;

  constructor(options: RedisCacheOptions) {
    super();
    this.keyPrefix = options.keyPrefix;
    this.client = new Redis(options.url, {
      lazyConnect: true,
      keyPrefix: options.keyPrefix,
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 4),
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(200 * attempt, 5000),
    }) as ScriptedRedis;
    // EVALSHA, falling back to EVAL once per connection when the script is not loaded yet.
    this.client.defineCommand('opsGetVersioned', { numberOfKeys: 1, lua: GET_VERSIONED_LUA });
    this.client.defineCommand('opsSetIfAbsent', { numberOfKeys: 1, lua: SET_IF_ABSENT_LUA });
    this.client.on('ready', () => this.markAvailable());
    this.client.on('error', (error: Error) => this.markUnavailable(error));
    this.client.on('end', () => this.markUnavailable(new Error('connection closed')));
  }

  /** Connects once at start-up; an unreachable Redis is logged, not fatal. */
  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      this.markUnavailable(error as Error);
    }
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // fall through to a hard disconnect
      }
    }
    this.client.disconnect();
  }

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.attempt(() => this.client.get(key));
    return raw === undefined || raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async set<T>(key: string, value: T, ttlSeconds: number): Promise<void> {
    await this.attempt(() => this.client.set(key, JSON.stringify(value), 'PX', ttlMs(ttlSeconds)));
  }

  async setIfAbsent<T>(key: string, value: T, ttlSeconds: number): Promise<T | undefined> {
    const raw = await this.attempt(() =>
      this.client.opsSetIfAbsent(key, JSON.stringify(value), ttlMs(ttlSeconds)),
    );
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  async getVersioned<T>(versionKey: string, entryKey: VersionedKey): Promise<VersionedRead<T>> {
    // keyPrefix applies to KEYS only; the script builds the entry key itself.
    const reply = await this.attempt(() =>
      this.client.opsGetVersioned(versionKey, this.keyPrefix + entryKey.prefix, entryKey.suffix),
    );
    const [version, raw] = reply ?? [null, null];
    if (version === null) return {};
    return { version, value: raw === null ? undefined : (JSON.parse(raw) as T) };
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length > 0) await this.attempt(() => this.client.del(...keys));
  }

  async increment(key: string): Promise<number | undefined> {
    return this.attempt(() => this.client.incr(key));
  }

  health(): CacheHealth {
    return {
      backend: this.backend,
      available: this.available,
      lastError: this.available ? undefined : this.lastError,
    };
  }

  private async attempt<T>(command: () => Promise<T>): Promise<T | undefined> {
    if (this.client.status !== 'ready') {
      this.markUnavailable(new Error(`redis connection is ${this.client.status}`));
      return undefined;
    }
    try {
      return await command();
    } catch (error) {
      this.markUnavailable(error as Error);
      return undefined;
    }
  }

  private markAvailable(): void {
    if (!this.available) this.logger.log('redis cache available');
    this.available = true;
    this.outageReported = false;
    this.lastError = undefined;
  }

  private markUnavailable(error: Error): void {
    this.available = false;
    this.lastError = error.message;
    if (this.outageReported) return;
    this.outageReported = true;
    this.logger.warn({ msg: 'redis cache unavailable, serving without cache', error: error.message });
  }
}
