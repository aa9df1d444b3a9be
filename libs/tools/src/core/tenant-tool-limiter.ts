import { Injectable, Optional } from '@nestjs/common';
import { ClusterLimits } from '@app/platform';
import { BoundedSemaphore } from './bounded-semaphore';
import { ToolsConfig } from '../tools.config';

/** Resolves after `ms`, or at once when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Per-tenant budget of concurrent tool runs: one tenant's burst waits (briefly) in its own queue and
 * is then refused, while other tenants keep their share of the processes and the database pool.
 *
 * Two gates: a semaphore in this process (first come, first served among its own callers, and no
 * Redis traffic for runs that would wait anyway), then a slot of the tenant's cluster-wide semaphore
 * (a lease in Redis, renewed while the run lasts), so TOOL_MAX_CONCURRENT_PER_TENANT holds across
 * replicas. A run refused by the cluster gate polls it until the queue bound.
 */
@Injectable()
export class TenantToolLimiter {
  private readonly tenants = new Map<string, BoundedSemaphore>();

  constructor(
    private readonly config: ToolsConfig,
    @Optional() private readonly limits?: ClusterLimits,
  ) {}

  /** A release function, or null when the tenant's runs stayed busy for longer than the queue bound. */
  async acquire(tenantId: string, signal: AbortSignal): Promise<(() => void) | null> {
    const limit = this.config.TOOL_MAX_CONCURRENT_PER_TENANT;
    const deadline = Date.now() + this.config.TOOL_QUEUE_WAIT_MS;
    let semaphore = this.tenants.get(tenantId);
    if (!semaphore) {
      semaphore = new BoundedSemaphore(limit);
      this.tenants.set(tenantId, semaphore);
    }
    const releaseHere = await semaphore.acquire(this.config.TOOL_QUEUE_WAIT_MS, signal);
    if (!releaseHere) return null;
    const releaseLocal = () => {
      releaseHere();
      if (semaphore.running === 0 && semaphore.queued === 0) this.tenants.delete(tenantId);
    };
    if (!this.limits) return releaseLocal;

    const key = `tools:running:${tenantId}`;
    const leaseSeconds = this.config.TOOL_SLOT_LEASE_SECONDS;
    for (let wait = 25; ; wait = Math.min(wait * 2, 250)) {
      const grant = await this.limits.acquire(key, { limit, leaseSeconds, keepAlive: true });
      if (grant.granted) {
        return () => {
          void grant.slot.release();
          releaseLocal();
        };
      }
      const left = deadline - Date.now();
      if (left <= 0 || signal.aborted) {
        releaseLocal();
        return null;
      }
      await pause(Math.min(wait, left), signal);
    }
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.config.TOOL_QUEUE_WAIT_MS / 1000));
  }
}
