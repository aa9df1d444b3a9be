import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { Principal } from '@app/platform';

/**
 * Per API key (the authentication guard runs first and sets the principal); requests without one
 * (public routes) count per client address. Health probes are never limited.
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
}
