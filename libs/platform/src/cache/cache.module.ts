import { Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CacheStore } from './cache-store';
import { ClusterLimits } from './cluster-limits';
import { MemoryCacheStore } from './memory-cache.store';
import { RedisCacheStore } from './redis-cache.store';

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

export function createCacheStore(config: AppConfig): CacheStore {
  const url = config.redisUrl;
  if (!url) return new MemoryCacheStore(config.get('CACHE_MAX_ENTRIES'));
  return new RedisCacheStore({
    url,
    keyPrefix: config.get('CACHE_KEY_PREFIX'),
    commandTimeoutMs: config.get('REDIS_COMMAND_TIMEOUT_MS'),
  });
}

@Global()
@Module({
  providers: [
    { provide: CacheStore, inject: [AppConfig], useFactory: createCacheStore },
    ClusterLimits,
    CacheLifecycle,
  ],
  exports: [CacheStore, ClusterLimits],
})
export class CacheModule {}
