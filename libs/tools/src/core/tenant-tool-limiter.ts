import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/platform';
import { BoundedSemaphore } from './bounded-semaphore';

/**
 * Per-tenant budget of concurrent tool runs: one tenant's burst waits (briefly) in its own queue and
 * is then refused, while other tenants keep their share of the process and the database pool.
 */
@Injectable()
export class TenantToolLimiter {
  private readonly tenants = new Map<string, BoundedSemaphore>();

  constructor(private readonly config: AppConfig) {}

  /** A release function, or null when the tenant's runs stayed busy for longer than the queue bound. */
  async acquire(tenantId: string, signal: AbortSignal): Promise<(() => void) | null> {
    let semaphore = this.tenants.get(tenantId);
    if (!semaphore) {
      semaphore = new BoundedSemaphore(this.config.get('TOOL_MAX_CONCURRENT_PER_TENANT'));
      this.tenants.set(tenantId, semaphore);
    }
    const release = await semaphore.acquire(this.config.get('TOOL_QUEUE_WAIT_MS'), signal);
    if (!release) return null;
    return () => {
      release();
      if (semaphore.running === 0 && semaphore.queued === 0) this.tenants.delete(tenantId);
    };
  }

  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.config.get('TOOL_QUEUE_WAIT_MS') / 1000));
  }
}
