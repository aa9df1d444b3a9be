import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { ioredis, REDIS_DISCONNECT_TIMEOUT_MS } from './ioredis-module';
import {
  CacheHealth,
  CacheStore,
  LeaseGrant,
  LeaseRequest,
  VersionedKey,
  VersionedRead,
  WindowCount,
} from './cache-store';
import { RedisCircuitBreaker } from './redis-circuit-breaker';

export interface RedisCacheOptions {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
  /** Shared with the other clients of the same Redis; by default one of its own (2 s cool-down). */
  circuit?: RedisCircuitBreaker;
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

// A fixed window: the first hit starts it; the count and the window's remaining time in one round trip.
// A counter left without an expiry (an interrupted older writer) gets one.
const INCREMENT_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

// Lease-based counting semaphore: a sorted set of holders scored by lease expiry, in Redis server time
// (one clock for every replica). Expired leases are dropped before counting; the set itself expires
// with its last lease, so a semaphore nobody uses leaves nothing behind.
const LEASE_PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local function keep_until_last_lease()
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
end
`;

const ACQUIRE_LEASE_LUA = `${LEASE_PRELUDE}
local held = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or held < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  keep_until_last_lease()
  return {1, redis.call('ZCARD', KEYS[1]), 0}
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, held, tonumber(first[2]) - now}
`;

const RENEW_LEASE_LUA = `${LEASE_PRELUDE}
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
keep_until_last_lease()
return 1
`;

const COUNT_LEASES_LUA = `${LEASE_PRELUDE}
return redis.call('ZCARD', KEYS[1])
`;

interface ScriptedRedis extends Redis {
  opsGetVersioned(
    versionKey: string,
    entryKeyPrefix: string,
    entryKeySuffix: string,
  ): Promise<[string | null, string | null]>;
  opsSetIfAbsent(key: string, value: string, ttlMs: number): Promise<string>;
  opsIncrementWindow(key: string, windowMs: number): Promise<[number, number]>;
  opsAcquireLease(
    key: string,
    holder: string,
    limit: number,
    leaseMs: number,
  ): Promise<[number, number, number]>;
  opsRenewLease(key: string, holder: string, leaseMs: number): Promise<number>;
  opsCountLeases(key: string): Promise<number>;
}

const ttlMs = (ttlSeconds: number) => Math.max(1, Math.round(ttlSeconds * 1000));

/**
 * Redis adapter. No offline queue, a command timeout and a circuit breaker that skips Redis after a
 * command failed, so a slow or dead Redis costs a request at most one `commandTimeoutMs`, not one per
 * command; failures degrade to cache misses with one warning per outage.
 */
export class RedisCacheStore extends CacheStore {
  readonly backend = 'redis' as const;
  private readonly logger = new Logger(RedisCacheStore.name);
  private readonly client: ScriptedRedis;
  private readonly keyPrefix: string;
  readonly circuit: RedisCircuitBreaker;
  private available = false;
  private outageReported = false;
  private lastError?: string;

  constructor(options: RedisCacheOptions) {
    super();
    this.keyPrefix = options.keyPrefix;
    this.circuit = options.circuit ?? new RedisCircuitBreaker(2000);
    this.client = new (ioredis().default)(options.url, {
      lazyConnect: true,
      keyPrefix: options.keyPrefix,
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 4),
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(200 * attempt, 5000),
      disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
    }) as ScriptedRedis;
    // EVALSHA, falling back to EVAL once per connection when the script is not loaded yet.
    this.client.defineCommand('opsGetVersioned', { numberOfKeys: 1, lua: GET_VERSIONED_LUA });
    this.client.defineCommand('opsSetIfAbsent', { numberOfKeys: 1, lua: SET_IF_ABSENT_LUA });
    this.client.defineCommand('opsIncrementWindow', { numberOfKeys: 1, lua: INCREMENT_WINDOW_LUA });
    this.client.defineCommand('opsAcquireLease', { numberOfKeys: 1, lua: ACQUIRE_LEASE_LUA });
    this.client.defineCommand('opsRenewLease', { numberOfKeys: 1, lua: RENEW_LEASE_LUA });
    this.client.defineCommand('opsCountLeases', { numberOfKeys: 1, lua: COUNT_LEASES_LUA });
    this.client.on('ready', () => {
      this.circuit.close();
      this.markAvailable();
    });
    this.circuit.onChange((state, error) => {
      if (state === 'open') this.markUnavailable(error ?? new Error('redis is failing'));
      else if (this.client.status === 'ready') this.markAvailable();
    });
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

  async expire(key: string, ttlSeconds: number): Promise<boolean | undefined> {
    const reply = await this.attempt(() => this.client.pexpire(key, ttlMs(ttlSeconds)));
    return reply === undefined ? undefined : reply === 1;
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

  async increment(key: string, ttlSeconds?: number): Promise<number | undefined> {
    if (ttlSeconds === undefined) return this.attempt(() => this.client.incr(key));
    return (await this.incrementWindow(key, ttlSeconds))?.count;
  }

  async incrementWindow(key: string, windowSeconds: number): Promise<WindowCount | undefined> {
    const reply = await this.attempt(() => this.client.opsIncrementWindow(key, ttlMs(windowSeconds)));
    return reply && { count: reply[0], resetInMs: reply[1] };
  }

  async acquireLease(
    key: string,
    { holder, limit, leaseSeconds }: LeaseRequest,
  ): Promise<LeaseGrant | undefined> {
    const reply = await this.attempt(() =>
      this.client.opsAcquireLease(key, holder, limit, ttlMs(leaseSeconds)),
    );
    if (!reply) return undefined;
    const [granted, held, retryAfterMs] = reply;
    return granted === 1
      ? { granted: true, held }
      : { granted: false, held, retryAfterMs: Math.max(0, retryAfterMs) };
  }

  async renewLease(key: string, holder: string, leaseSeconds: number): Promise<boolean | undefined> {
    const reply = await this.attempt(() => this.client.opsRenewLease(key, holder, ttlMs(leaseSeconds)));
    return reply === undefined ? undefined : reply === 1;
  }

  async releaseLease(key: string, holder: string): Promise<void> {
    await this.attempt(() => this.client.zrem(key, holder));
  }

  async countLeases(key: string): Promise<number | undefined> {
    return this.attempt(() => this.client.opsCountLeases(key));
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
      const outcome = await this.circuit.run(command, () => this.client.ping());
      if (!outcome.sent) return undefined;
      // Back after a command timed out on a connection that stayed up (no 'ready' event follows).
      if (!this.available) this.markAvailable();
      return outcome.reply;
    } catch (error) {
      // An error reply: Redis answers, this one command failed.
      this.logger.warn({ msg: 'redis command failed', error: (error as Error).message });
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
