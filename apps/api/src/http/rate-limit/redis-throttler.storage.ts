import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type Redis from 'ioredis';
import { ioredis, PlatformConfig, REDIS_DISCONNECT_TIMEOUT_MS, RedisCircuitBreaker } from '@app/platform';

// A fixed window per key: the first hit starts it; the count and the window's remaining time come
// back in one round trip.
const HIT_LUA = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}
`;

interface ScriptedRedis extends Redis {
  opsThrottleHit(key: string, ttlMs: number): Promise<[number, number]>;
}

/**
 * Rate-limit counters for @nestjs/throttler. With Redis the counters are shared, so a key's limit
 * holds across every replica; without it (or while Redis is unreachable) each process counts alone.
 * It shares the cache's circuit breaker: once a Redis command timed out, neither asks Redis again
 * until a background probe says it answers, so a frozen Redis costs a request at most one timeout.
 */
@Injectable()
export class RateLimitStorage implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly local = new ThrottlerStorageService();
  private readonly redis: ScriptedRedis | undefined;
  private outageReported = false;

  constructor(
    config: PlatformConfig,
    private readonly circuit: RedisCircuitBreaker,
  ) {
    const url = config.REDIS_URL;
    if (!url) return;
    const timeout = config.REDIS_COMMAND_TIMEOUT_MS;
    this.redis = new (ioredis().default)(url, {
      lazyConnect: true,
      keyPrefix: `${config.CACHE_KEY_PREFIX}ratelimit:`,
      enableOfflineQueue: false,
      commandTimeout: timeout,
      connectTimeout: Math.max(1000, timeout * 4),
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(200 * attempt, 5000),
      disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
    }) as ScriptedRedis;
    this.redis.defineCommand('opsThrottleHit', { numberOfKeys: 1, lua: HIT_LUA });
    this.redis.on('error', (error: Error) => this.reportOutage(error));
    this.circuit.onChange((state) => {
      if (state === 'closed') this.outageReported = false;
    });
    this.redis.on('ready', () => {
      this.outageReported = false;
      this.circuit.close();
    });
  }

  get shared(): boolean {
    return this.redis?.status === 'ready';
  }

  async onModuleInit(): Promise<void> {
    await this.redis?.connect().catch((error: Error) => this.reportOutage(error));
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
    this.local.onApplicationShutdown();
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const redis = this.redis;
    if (redis?.status === 'ready') {
      try {
        const outcome = await this.circuit.run(
          () => redis.opsThrottleHit(`${throttlerName}:${key}`, ttl),
          () => redis.ping(),
        );
        if (outcome.sent) {
          const [hits, ttlMs] = outcome.reply;
          const timeToExpire = Math.max(1, Math.ceil(ttlMs / 1000));
          return { totalHits: hits, timeToExpire, isBlocked: hits > limit, timeToBlockExpire: timeToExpire };
        }
        this.reportOutage(new Error('redis is failing (circuit open)'));
      } catch (error) {
        this.reportOutage(error as Error);
      }
    }
    return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
  }

  private reportOutage(error: Error): void {
    if (this.outageReported) return;
    this.outageReported = true;
    this.logger.warn({
      msg: 'rate limits counted per process while Redis is unreachable',
      error: error.message,
    });
  }
}
