/**
 * The job queue's rules that need no database: which tenant's job goes next, how long a failed
 * attempt waits, whether it is retried, and whether an enqueue stays within the tenant's limits.
 * JobQueue applies them to its tables.
 */

/** What a failed job keeps: a stable code, a message, and any details the kind adds. */
export interface JobError {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** A tenant with due work, as the claim sees it. */
export interface TenantTurn {
  tenantId: string;
  /** Jobs of the tenant running under a live lease. */
  running: number;
  /** When a worker last claimed one of its jobs (null: never). */
  lastClaimedAt: Date | null;
  /** Its longest-waiting due job's due time. */
  waitingSince: Date;
}

const time = (date: Date | null) => (date === null ? Number.NEGATIVE_INFINITY : date.getTime());

/**
 * The order in which tenants get the next slot: the tenant with the fewest running jobs, then the
 * one served longest ago (never served first: round-robin), then the one waiting longest. A tenant
 * holding `maxRunningPerTenant` running jobs (0: no cap) gets none until one ends, so its burst
 * cannot hold every worker slot.
 */
export function tenantTurnOrder(turns: readonly TenantTurn[], maxRunningPerTenant: number): string[] {
  return turns
    .filter((turn) => maxRunningPerTenant <= 0 || turn.running < maxRunningPerTenant)
    .sort(
      (a, b) =>
        a.running - b.running ||
        time(a.lastClaimedAt) - time(b.lastClaimedAt) ||
        a.waitingSince.getTime() - b.waitingSince.getTime() ||
        (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0),
    )
    .map((turn) => turn.tenantId);
}

export interface RetryPolicy {
  /** The wait after the first failed attempt. */
  baseSeconds: number;
  /** Each further attempt waits this many times longer (1: a fixed delay). */
  factor: number;
  /** No wait is longer. */
  maxSeconds: number;
}

/** The wait before the attempt after `attempt` (1-based) failed. */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  const delay = policy.baseSeconds * policy.factor ** Math.max(0, attempt - 1);
  return Math.min(policy.maxSeconds, delay);
}

/** A failed attempt is retried when the failure may pass and attempts are left; otherwise the job fails. */
export function failedAttemptOutcome(
  job: { attempts: number; maxAttempts: number },
  retryable: boolean,
): 'retry' | 'fail' {
  return retryable && job.attempts < job.maxAttempts ? 'retry' : 'fail';
}

/** One per-tenant limit on queued work: what is queued now and what the enqueue would add. */
export interface QueuedWorkCheck {
  /** The config key of the limit (it names the limit in the 429). */
  key: string;
  limit: number;
  queued: number;
  adding: number;
}

export interface QueueLimitExceeded {
  key: string;
  limit: number;
  observed: number;
}

/** The first limit the enqueue would pass, or null when the tenant's queue has room. */
export function exceededQueueLimit(checks: readonly QueuedWorkCheck[]): QueueLimitExceeded | null {
  for (const check of checks) {
    const observed = check.queued + check.adding;
    if (observed > check.limit) return { key: check.key, limit: check.limit, observed };
  }
  return null;
}
