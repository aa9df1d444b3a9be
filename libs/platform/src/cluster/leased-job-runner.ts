import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { runInBackground } from '../database/database-priority';
import { runAsSystem, runAsTenant } from '../database/database-scope';
import { ProcessRole } from './process-role';

const IDLE_POLL_MS = 2000;

/** A job claimed from a table-backed queue: it runs as its tenant under a lease this process renews. */
export interface LeasedJob {
  id: string;
  tenantId: string;
}

/**
 * The loop every table-backed queue shares (document ingestion, code diffs): claim due jobs up to
 * the concurrency, renew each job's lease while it runs (a third of the lease), stop when the lease
 * was taken over, and wake on new work or poll while idle. In a server process whose role runs jobs
 * (APP_ROLE all or worker) it starts itself; one-shot contexts (CLI, tests, `?wait=true` without a
 * background worker) call `drainJobs()`. Claiming reads the queue across tenants (as the system);
 * a claimed job then runs as its tenant. Everything a runner does on the database is background work
 * (`runInBackground`): on the embedded database requests go first.
 */
export abstract class LeasedJobRunner<J extends LeasedJob>
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  protected abstract readonly logger: Logger;
  private running = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly active = new Set<Promise<void>>();

  protected constructor(
    protected readonly role: ProcessRole,
    /** Nest's SchedulerRegistry is present in server processes only; one-shot contexts drain instead. */
    private readonly inServerProcess: boolean,
  ) {}

  /** Jobs run at once in the background. */
  abstract get concurrency(): number;
  /** The lease a claim takes and each renewal extends, in seconds. */
  protected abstract get leaseSeconds(): number;
  /** Why claiming reads across tenants (the audit log's reason). */
  protected abstract readonly claimReason: string;
  /** The next due job, leased to `workerId` for `leaseSeconds`, or null. */
  protected abstract claimJob(): Promise<J | null>;
  /** Extends the lease; false when another worker owns the job now. */
  protected abstract renewLease(job: J): Promise<boolean>;
  /**
   * Runs the job to its end, recording success or failure itself; `held()` turns false once the
   * lease was lost, and the job should stop at its next check.
   */
  protected abstract process(job: J, held: () => boolean): Promise<void>;

  /** How long to sleep when nothing was claimed (a queue with future retries may say sooner). */
  protected idleDelayMs(): Promise<number> {
    return Promise.resolve(IDLE_POLL_MS);
  }

  get autoStarts(): boolean {
    return this.inServerProcess && this.role.runsJobs && this.concurrency > 0;
  }

  onApplicationBootstrap(): void {
    if (this.autoStarts) this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.active]);
  }

  /** Wakes the poller now (a job was just enqueued in this process). */
  wake(): void {
    if (this.autoStarts && !this.stopped) this.schedule(0);
  }

  /** Processes due jobs in this process until none is left; returns how many it claimed. */
  protected async drainJobs(max: number, parallel: number): Promise<number> {
    let claimed = 0;
    const loop = async () => {
      while (claimed < max) {
        claimed++; // reserved before the claim, so parallel loops never take more than max
        const job = await this.claim();
        if (!job) {
          claimed--;
          return;
        }
        await this.execute(job);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, parallel) }, loop));
    return claimed;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), delayMs);
    this.timer.unref();
  }

  private async fill(): Promise<void> {
    if (this.stopped) return;
    let claimedAny = false;
    try {
      while (this.running < this.concurrency && !this.stopped) {
        const job = await this.claim();
        if (!job) break;
        claimedAny = true;
        this.running++;
        const work = this.execute(job).finally(() => {
          this.running--;
          this.active.delete(work);
          if (!this.stopped) this.schedule(0);
        });
        this.active.add(work);
      }
    } catch (error) {
      this.logger.warn({ msg: 'claiming a job failed', error: (error as Error).message });
    }
    // A finishing job schedules the next fill; with nothing claimed, poll.
    if (!this.stopped && !claimedAny)
      this.schedule(await runInBackground(() => this.idleDelayMs()).catch(() => IDLE_POLL_MS));
  }

  private claim(): Promise<J | null> {
    return runInBackground(() => runAsSystem(this.claimReason, () => this.claimJob(), { quiet: true }));
  }

  private execute(job: J): Promise<void> {
    return runInBackground(() => this.executeAsTenant(job));
  }

  private executeAsTenant(job: J): Promise<void> {
    return runAsTenant(job.tenantId, async () => {
      let held = true;
      const beat = setInterval(
        () => {
          this.renewLease(job)
            .then((ok) => {
              if (!ok) held = false;
            })
            .catch(() => undefined);
        },
        Math.max(500, (this.leaseSeconds * 1000) / 3),
      );
      beat.unref();
      try {
        await this.process(job, () => held);
      } finally {
        clearInterval(beat);
      }
    });
  }
}
