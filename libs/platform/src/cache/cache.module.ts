import { Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { PlatformConfig } from '../platform.config';
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

export function createCacheStore(config: PlatformConfig, circuit?: RedisCircuitBreaker): CacheStore {
  const url = config.REDIS_URL;
  if (!url) return new MemoryCacheStore(config.CACHE_MAX_ENTRIES);
  return new RedisCacheStore({
    url,
    keyPrefix: config.CACHE_KEY_PREFIX,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    circuit,
  });
}

@Global()
@Module({
  providers: [
    // One per process, shared by every client of REDIS_URL (cache, rate limits).
    {
      provide: RedisCircuitBreaker,
      inject: [PlatformConfig],
      useFactory: (config: PlatformConfig) => new RedisCircuitBreaker(config.REDIS_CIRCUIT_COOLDOWN_MS),
    },
    { provide: CacheStore, inject: [PlatformConfig, RedisCircuitBreaker], useFactory: createCacheStore },
    ClusterLimits,
    CacheLifecycle,
  ],
  exports: [CacheStore, ClusterLimits, RedisCircuitBreaker],
})
export class CacheModule {}
