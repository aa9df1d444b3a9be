import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';
import type { Principal } from '@app/platform';

/** The throttler that counts every key of a tenant together (RATE_LIMIT_PER_TENANT). */
export const TENANT_THROTTLER = 'tenant';
const TENANT_TRACKER = 'tenant:';

/** Tracks a request by its tenant; requests without a principal are left to the per-key throttler. */
export function tenantTracker(req: Record<string, unknown>): string {
  const principal = req.principal as Principal | undefined;
  return principal ? `${TENANT_TRACKER}${principal.tenantId}` : '';
}

/**
 * Per API key (the authentication guard runs first and sets the principal); requests without one
 * (public routes) count per client address. Health probes are never limited. A second throttler counts
 * each tenant's keys together, so minting keys does not multiply a tenant's share.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const principal = req.principal as Principal | undefined;
    return Promise.resolve(principal ? `key:${principal.keyId}` : `ip:${String(req.ip)}`);
  }

  /** One budget per key across every route (the default is one per route handler). */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  /** The tenant's budget answers like the key's: a plain `Retry-After` (not `Retry-After-tenant`) and its own message. */
  protected override throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    if (!detail.tracker.startsWith(TENANT_TRACKER)) return super.throwThrottlingException(context, detail);
    context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(detail.timeToBlockExpire));
    throw new ThrottlerException(
      `This tenant's keys together made ${detail.limit} requests in ${Math.round(detail.ttl / 1000)} s, its budget; retry after ${detail.timeToBlockExpire} s.`,
    );
  }
}
