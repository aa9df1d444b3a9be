import { Injectable } from '@nestjs/common';

export type DependencyStatus = 'ok' | 'degraded' | 'down' | 'disabled';

export interface DependencyHealth {
  status: DependencyStatus;
  [detail: string]: unknown;
}

/** Who asked: a system admin (authenticated by key) may see per-tenant detail the public report leaves out. */
export interface HealthViewer {
  systemAdmin: boolean;
}

interface RegisteredCheck {
  critical: boolean;
  check: (viewer: HealthViewer) => Promise<DependencyHealth>;
}

export interface ReadinessReport {
  status: 'ok' | 'degraded' | 'down';
  checks: Record<string, DependencyHealth>;
}

/**
 * Readiness checks contributed by each module (database, cache, later embedder and LLM). A critical
 * dependency that is down makes the service unready; anything else only degrades it.
 */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, RegisteredCheck>();

  register(
    name: string,
    check: (viewer: HealthViewer) => Promise<DependencyHealth>,
    options: { critical: boolean },
  ): void {
    this.checks.set(name, { check, critical: options.critical });
  }

  async report(timeoutMs = 3000, viewer: HealthViewer = { systemAdmin: false }): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, { check, critical }]) => {
        const result = await withTimeout(check(viewer), timeoutMs).catch(
          (error: Error): DependencyHealth => ({
            status: 'down',
            error: error.message,
          }),
        );
        return { name, critical, result };
      }),
    );
    let status: ReadinessReport['status'] = 'ok';
    const checks: Record<string, DependencyHealth> = {};
    for (const { name, critical, result } of entries) {
      checks[name] = result;
      if (result.status === 'down' && critical) status = 'down';
      else if ((result.status === 'down' || result.status === 'degraded') && status === 'ok')
        status = 'degraded';
    }
    return { status, checks };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`health check timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
