import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CacheStore, WindowCount } from './cache-store';
import { MemoryCacheStore } from './memory-cache.store';

export interface SlotRequest {
  limit: number;
  leaseSeconds: number;
  /** Defaults to a fresh id; pass one to let another process renew or release the slot by id. */
  holder?: string;
  /** Renew the lease every third of its length until released (for a run of unknown length). */
  keepAlive?: boolean;
}

/** A slot held until `release`; `holder` names it for `renew` / `release` from anywhere. */
export interface HeldSlot {
  readonly holder: string;
  release(): Promise<void>;
}

export type SlotGrant =
  { granted: true; slot: HeldSlot; held: number } | { granted: false; held: number; retryAfterMs: number };

/**
 * Rate windows and counting semaphores that hold across every process sharing the cache (Redis), and
 * within this process otherwise. While Redis is unreachable each process counts alone (in memory), as
 * the per-key rate limits do: limits degrade to per process instead of failing requests.
 */
@Injectable()
export class ClusterLimits {
  private readonly logger = new Logger(ClusterLimits.name);
  private readonly local: CacheStore;
  private outageReported = false;

  constructor(@Inject(CacheStore) private readonly cache: CacheStore) {
    this.local = cache.backend === 'memory' ? cache : new MemoryCacheStore(1000);
  }

  /** Whether the counts are shared by every process right now. */
  get shared(): boolean {
    return this.cache.backend === 'redis' && this.cache.health().available;
  }

  /** Counts one hit in the fixed window at `key`. */
  async hit(key: string, windowSeconds: number): Promise<WindowCount> {
    const shared = await this.cache.incrementWindow(key, windowSeconds);
    if (shared) return this.reachable(shared);
    this.reportOutage();
    return (await this.local.incrementWindow(key, windowSeconds))!;
  }

  /** One slot of the semaphore at `key`, or when the earliest lease frees one if all are taken. */
  async acquire(key: string, request: SlotRequest): Promise<SlotGrant> {
    const holder = request.holder ?? randomUUID();
    const lease = { holder, limit: request.limit, leaseSeconds: request.leaseSeconds };
    let store = this.cache;
    let grant = this.reachable(await this.cache.acquireLease(key, lease));
    if (!grant) {
      this.reportOutage();
      store = this.local;
      grant = (await this.local.acquireLease(key, lease))!;
    }
    if (!grant.granted) return grant;
    let timer: NodeJS.Timeout | undefined;
    if (request.keepAlive) {
      const everyMs = Math.max(100, (request.leaseSeconds * 1000) / 3);
      timer = setInterval(() => void store.renewLease(key, holder, request.leaseSeconds), everyMs);
      timer.unref();
    }
    let released = false;
    const slot: HeldSlot = {
      holder,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await store.releaseLease(key, holder);
      },
    };
    return { granted: true, slot, held: grant.held };
  }

  /** Extends the lease of `holder` wherever it is held; false when it is held nowhere any more. */
  async renew(key: string, holder: string, leaseSeconds: number): Promise<boolean> {
    if (this.cache !== this.local && (await this.cache.renewLease(key, holder, leaseSeconds))) return true;
    return (await this.local.renewLease(key, holder, leaseSeconds)) === true;
  }

  /** Frees the slot of `holder` (taken by this or any other process). */
  async release(key: string, holder: string): Promise<void> {
    await this.cache.releaseLease(key, holder);
    if (this.local !== this.cache) await this.local.releaseLease(key, holder);
  }

  private reachable<T>(reply: T): T {
    if (reply !== undefined) this.outageReported = false;
    return reply;
  }

  private reportOutage(): void {
    if (this.outageReported) return;
    this.outageReported = true;
    this.logger.warn('cluster-wide limits are counted per process while Redis is unreachable');
  }
}
