import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, QueryRunner } from 'typeorm';
import { PlatformConfig } from '../platform.config';
import { runInBackground } from '../database/database-priority';

/** Two 32-bit keys from a job name (namespace 0x6f707331 = "ops1"), stable across processes. */
export function advisoryKeyOf(name: string): [number, number] {
  return [0x6f707331, createHash('sha256').update(name).digest().readInt32BE(0)];
}

export interface ClusterRunOptions {
  /**
   * Run at most once per this many seconds across the cluster: a process that takes the lock runs the
   * job only if no process ran it within the interval (less a tenth of it, at most 5 s, for timer drift).
   */
  onceEverySeconds?: number;
}

/** Room left for timers that fire a little early or late: a tenth of the interval, at most 5 s. */
export const intervalToleranceSeconds = (seconds: number) => Math.min(seconds / 10, 5);

/**
 * Runs a scheduled job at most once at a time across every process on the database: the process
 * that takes `pg_try_advisory_lock` runs it, the others skip this round. The lock is a session lock
 * on one dedicated connection, so a process that dies mid-run releases it with its connection.
 * With `onceEverySeconds`, the lock holder also claims the run in `scheduled_job_runs` (moves the
 * job's `last_run_at` forward only when the interval has passed), so every worker's timer may fire
 * but the job runs once per cluster per interval, not once per worker.
 * Embedded PGlite serves a single process (its data directory is locked), so it runs directly.
 * A scheduled job is background work (`runInBackground`): on the embedded database requests go first.
 */
@Injectable()
export class ClusterLock {
  private readonly logger = new Logger(ClusterLock.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: PlatformConfig,
  ) {}

  /**
   * The job's result, or `{ skipped: true }` when another process holds the lock or (with
   * `onceEverySeconds`) ran the job within its interval.
   */
  async runExclusive<T>(
    name: string,
    job: () => Promise<T>,
    options: ClusterRunOptions = {},
  ): Promise<{ skipped: false; result: T } | { skipped: true }> {
    if (!this.config.DATABASE_URL) return { skipped: false, result: await runInBackground(job) };
    const [space, key] = advisoryKeyOf(name);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [
        space,
        key,
      ])) as Array<{
        locked: boolean;
      }>;
      if (!row?.locked) {
        this.logger.debug({ msg: 'scheduled job already running elsewhere, skipped', job: name });
        return { skipped: true };
      }
      try {
        if (
          options.onceEverySeconds !== undefined &&
          !(await this.claim(runner, name, options.onceEverySeconds))
        ) {
          this.logger.debug({ msg: 'scheduled job already ran in this interval, skipped', job: name });
          return { skipped: true };
        }
        return { skipped: false, result: await runInBackground(job) };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1, $2)', [space, key]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  /** Moves the job's last run to now if it is older than the interval (in database time); true if so. */
  private async claim(runner: QueryRunner, name: string, seconds: number): Promise<boolean> {
    const claimed = (await runner.query(
      `INSERT INTO scheduled_job_runs AS r (name, last_run_at) VALUES ($1, now())
       ON CONFLICT (name) DO UPDATE SET last_run_at = now()
        WHERE r.last_run_at <= now() - make_interval(secs => $2)
       RETURNING r.name`,
      [name, seconds - intervalToleranceSeconds(seconds)],
    )) as unknown[];
    return claimed.length === 1;
  }
}
