import { Injectable, Logger, Optional } from '@nestjs/common';
import { Cron, CronExpression, SchedulerRegistry } from '@nestjs/schedule';
import {
  ClusterLock,
  failedAttemptOutcome,
  LeasedJobRunner,
  ProcessRole,
  retryDelaySeconds,
  runAsSystem,
  runInBackground,
} from '@app/platform';
import { CodeIndexerService, DiffLeaseLostError } from '../indexing/code-indexer.service';
import { ClaimedDiff, CodeDiffsRepository } from './code-diffs.repository';
import { CodeConfig } from '../code.config';

/**
 * Indexes queued diffs (the seed's WAL processing). Runs in the server process, where schedulers
 * run; one-shot contexts (CLI, tests, `?wait=true` without a background worker) call `drain()`.
 * A diff that failed as a whole (the database went away) is retried after CODE_DIFF_RETRY_SECONDS
 * (the seed's 5-minute WAL recovery) until CODE_DIFF_MAX_ATTEMPTS, holding back its repository's
 * later diffs meanwhile; a file that fails on its own is reported in `failed_files` and stays
 * unindexed (its indexed hash is not updated) until `recover()` queues it again. Finished diffs
 * are deleted after CODE_DIFF_RETENTION_DAYS.
 */
@Injectable()
export class CodeDiffWorker extends LeasedJobRunner<ClaimedDiff> {
  protected readonly logger = new Logger('CodeDiffWorker');
  protected readonly claimReason = 'code diff worker: claim a diff';
  private recoveryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: CodeConfig,
    private readonly store: CodeDiffsRepository,
    private readonly indexer: CodeIndexerService,
    role: ProcessRole,
    private readonly lock: ClusterLock,
    @Optional() scheduler?: SchedulerRegistry,
  ) {
    super(role, Boolean(scheduler));
  }

  get concurrency(): number {
    return this.config.CODE_WORKER_CONCURRENCY;
  }

  protected get leaseSeconds(): number {
    return this.config.CODE_DIFF_LEASE_SECONDS;
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    if (!this.autoStarts) return;
    this.recoveryTimer = setInterval(() => {
      runInBackground(() => this.recover())
        .then((queued) => {
          if (queued) this.wake();
        })
        .catch((error: Error) => this.logger.warn({ msg: 'code recovery failed', error: error.message }));
    }, this.config.CODE_DIFF_RETRY_SECONDS * 1000);
    this.recoveryTimer.unref();
  }

  override async onApplicationShutdown(): Promise<void> {
    clearInterval(this.recoveryTimer);
    await super.onApplicationShutdown();
  }

  /** Indexes due diffs in this process until none is left; returns how many it processed. */
  drain(options: { maxDiffs?: number; concurrency?: number } = {}): Promise<number> {
    return this.drainJobs(options.maxDiffs ?? Number.POSITIVE_INFINITY, options.concurrency ?? 1);
  }

  protected claimJob(): Promise<ClaimedDiff | null> {
    return this.store.claim(this.workerId, this.leaseSeconds, this.config.CODE_DIFF_MAX_RUNNING_PER_TENANT);
  }

  protected renewLease(diff: ClaimedDiff): Promise<boolean> {
    return this.store.heartbeat(diff.id, this.workerId, this.leaseSeconds);
  }

  protected async process(diff: ClaimedDiff, held: () => boolean): Promise<void> {
    try {
      const result = await this.indexer.indexDiff(diff, () => {
        if (!held()) throw new DiffLeaseLostError(diff.id);
      });
      if (result.failed_files.length > 0)
        this.logger.warn({ msg: 'diff files failed to index', diffId: diff.id, failed: result.failed_files });
      await this.store.complete(diff.id, this.workerId, result);
    } catch (error) {
      if (error instanceof DiffLeaseLostError) {
        this.logger.warn({ msg: 'diff lease lost; another worker owns it now', diffId: diff.id });
        return;
      }
      const details = { code: 'INDEXING_FAILED', message: (error as Error).message, attempts: diff.attempts };
      this.logger.warn({ msg: 'diff indexing failed', diffId: diff.id, ...details });
      // A lost write leaves the lease to expire: the diff is claimed again, or after its last attempt failed by recovery.
      if (failedAttemptOutcome(diff, true) === 'retry') {
        const retrySeconds = this.config.CODE_DIFF_RETRY_SECONDS;
        const delay = retryDelaySeconds(
          { baseSeconds: retrySeconds, factor: 1, maxSeconds: retrySeconds },
          diff.attempts,
        );
        await this.store.retryLater(diff.id, this.workerId, delay, details).catch(() => undefined);
      } else await this.store.fail(diff.id, this.workerId, details).catch(() => undefined);
    }
  }

  /**
   * The seed's WAL recovery: a diff whose worker died on its last attempt fails (LEASE_EXPIRED), and
   * files left unindexed (their file failed, or their diff gave up) for longer than
   * CODE_DIFF_RETRY_SECONDS are queued again, one diff per repository; returns how many were queued.
   */
  recover(): Promise<number> {
    return runAsSystem('code diff worker: fail abandoned diffs, requeue unindexed files', async () => {
      const failed = await this.store.failExhaustedExpired();
      if (failed) this.logger.warn({ msg: 'diffs failed: their worker died on every attempt', failed });
      return this.store.enqueueStaleFiles(
        this.config.CODE_DIFF_RETRY_SECONDS,
        this.config.CODE_DIFF_MAX_ATTEMPTS,
      );
    });
  }

  @Cron(CronExpression.EVERY_DAY_AT_4AM, { name: 'code-diffs-cleanup' })
  async cleanup(): Promise<void> {
    if (!this.role.runsSchedulers) return;
    // Once per cluster per day: one worker claims the run, the others skip it.
    await this.lock.runExclusive(
      'code-diffs-cleanup',
      async () => {
        const cutoff = new Date(Date.now() - this.config.CODE_DIFF_RETENTION_DAYS * 86_400_000);
        const deleted = await runAsSystem('code diffs: cleanup', () =>
          this.store.deleteFinishedBefore(cutoff),
        );
        if (deleted) this.logger.log({ msg: 'finished diffs deleted', deleted });
      },
      { onceEverySeconds: 86_400 },
    );
  }
}
