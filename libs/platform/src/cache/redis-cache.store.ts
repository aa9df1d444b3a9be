import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { CacheHealth, CacheStore } from './cache-store';

export interface RedisCacheOptions {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
}

/**
 * Redis adapter. No offline queue and a command timeout, so a slow or dead Redis costs a request at
 * most `commandTimeoutMs`; failures degrade to cache misses with one warning per outage.
 */
export class RedisCacheStore extends CacheStore {
  readonly backend = 'redis' as const;
  private readonly logger = new Logger(RedisCacheStore.name);
  private readonly client: Redis;
  private available = false;
  private outageReported = false;
  private lastError?: string;

  constructor(options: RedisCacheOptions) {
    super();
    this.client = new Redis(options.url, {
      lazyConnect: true,
      keyPrefix: options.keyPrefix,
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 4),
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(200 * attempt, 5000),
    });
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
    await this.attempt(() =>
      this.client.set(key, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlSeconds * 1000))),
    );
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
