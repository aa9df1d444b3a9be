import { Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CacheStore } from './cache-store';
import { ClusterLimits } from './cluster-limits';
import { MemoryCacheStore } from './memory-cache.store';
import { RedisCacheStore } from './redis-cache.store';
import { RedisCircuitBreaker } from './redis-circuit-breaker';

@Injectable()
class CacheLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(CacheStore) private readonly cache: CacheStore) {}

  async onModuleInit(): Promise<void> {
    if (this.cache instanceof RedisCacheStore) await this.cache.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.cache instanceof RedisCacheStore) await this.cache.close();
  }
}

export function createCacheStore(config: AppConfig, circuit?: RedisCircuitBreaker): CacheStore {
  const url = config.redisUrl;
  if (!url) return new MemoryCacheStore(config.get('CACHE_MAX_ENTRIES'));
  return new RedisCacheStore({
    url,
    keyPrefix: config.get('CACHE_KEY_PREFIX'),
    commandTimeoutMs: config.get('REDIS_COMMAND_TIMEOUT_MS'),
    circuit,
  });
}

@Global()
@Module({
  providers: [
    // One per process, shared by every client of REDIS_URL (cache, rate limits).
    {
      provide: RedisCircuitBreaker,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new RedisCircuitBreaker(config.get('REDIS_CIRCUIT_COOLDOWN_MS')),
    },
    { provide: CacheStore, inject: [AppConfig, RedisCircuitBreaker], useFactory: createCacheStore },
    ClusterLimits,
    CacheLifecycle,
  ],
  exports: [CacheStore, ClusterLimits, RedisCircuitBreaker],
})
export class CacheModule {}
