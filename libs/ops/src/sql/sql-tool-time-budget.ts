/**
 * Each tenant's sql tool database time (in this process) as a bucket that refills at `perHourMs` per hour and
 * holds at most `capacityMs`. A query may start while the bucket holds anything; its whole duration is
 * charged when it ends (done, failed or interrupted), so the bucket can go into debt by at most one
 * query, and over any hour a tenant's queries take at most `perHourMs + 2 * capacityMs`.
 */
export class SqlToolTimeBudget {
  private readonly buckets = new Map<string, { ms: number; at: number }>();

  constructor(
    private readonly perHourMs: number,
    private readonly capacityMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.perHourMs > 0;
  }

  /** Milliseconds the tenant may still use now; zero or less: nothing until it refills. */
  remainingMs(tenantId: string): number {
    const bucket = this.buckets.get(tenantId);
    if (!bucket) return this.capacityMs;
    const refilled = bucket.ms + ((this.now() - bucket.at) * this.perHourMs) / 3_600_000;
    return Math.min(this.capacityMs, refilled);
  }

  /** Seconds until the tenant may start a query again (0: now). */
  retryAfterSeconds(tenantId: string): number {
    const remaining = this.remainingMs(tenantId);
    if (remaining > 0) return 0;
    return Math.max(1, Math.ceil(((1 - remaining) * 3600) / this.perHourMs));
  }

  charge(tenantId: string, ms: number): void {
    const remaining = this.remainingMs(tenantId) - Math.max(0, ms);
    if (remaining >= this.capacityMs) this.buckets.delete(tenantId);
    else this.buckets.set(tenantId, { ms: remaining, at: this.now() });
  }
}
