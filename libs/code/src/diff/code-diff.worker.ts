import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Cron, CronExpression, SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { AppConfig, ClusterLock, ProcessRole, runAsSystem, runAsTenant } from '@app/platform';
import { CodeIndexerService, DiffLeaseLostError } from '../indexing/code-indexer.service';
import { ClaimedDiff, CodeStoreRepository } from './code-store.repository';

const IDLE_POLL_MS = 2000;

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
export class CodeDiffWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CodeDiffWorker');
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private recoveryTimer: NodeJS.Timeout | undefined;
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly config: AppConfig,
    private readonly store: CodeStoreRepository,
    private readonly indexer: CodeIndexerService,
    private readonly role: ProcessRole,
    private readonly lock: ClusterLock,
    @Optional() private readonly scheduler?: SchedulerRegistry,
  ) {}

  /** Claims diffs in the background only where jobs run (APP_ROLE all or worker), as the document worker. */
  get autoStarts(): boolean {
    return Boolean(this.scheduler) && this.role.runsJobs && this.config.get('CODE_WORKER_CONCURRENCY') > 0;
  }

  onApplicationBootstrap(): void {
    if (!this.autoStarts) return;
    this.schedule(0);
    this.recoveryTimer = setInterval(
      () => {
        this.recover()
          .then((queued) => {
            if (queued) this.wake();
          })
          .catch((error: Error) => this.logger.warn({ msg: 'code recovery failed', error: error.message }));
      },
      this.config.get('CODE_DIFF_RETRY_SECONDS') * 1000,
    );
    this.recoveryTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.recoveryTimer);
    await Promise.allSettled([...this.active]);
  }

  wake(): void {
    if (this.autoStarts && !this.stopped) this.schedule(0);
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
      while (this.running < this.config.get('CODE_WORKER_CONCURRENCY') && !this.stopped) {
        const diff = await this.claim();
        if (!diff) break;
        claimedAny = true;
        this.running++;
        const work = this.execute(diff).finally(() => {
          this.running--;
          this.active.delete(work);
          if (!this.stopped) this.schedule(0);
        });
        this.active.add(work);
      }
    } catch (error) {
      this.logger.warn({ msg: 'claiming a diff failed', error: (error as Error).message });
    }
    if (!this.stopped && !claimedAny) this.schedule(IDLE_POLL_MS);
  }

  /** Indexes due diffs in this process until none is left; returns how many it processed. */
  async drain(options: { maxDiffs?: number; concurrency?: number } = {}): Promise<number> {
    const max = options.maxDiffs ?? Number.POSITIVE_INFINITY;
    let claimed = 0;
    const loop = async () => {
      while (claimed < max) {
        const diff = await this.claim();
        if (!diff) return;
        claimed++;
        await this.execute(diff);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loop));
    return claimed;
  }

  private claim(): Promise<ClaimedDiff | null> {
    return runAsSystem(
      'code diff worker: claim a diff',
      () => this.store.claim(this.workerId, this.config.get('CODE_DIFF_LEASE_SECONDS')),
      { quiet: true },
    );
  }

  private execute(diff: ClaimedDiff): Promise<void> {
    return runAsTenant(diff.tenantId, () => this.executeAsTenant(diff));
  }

  private async executeAsTenant(diff: ClaimedDiff): Promise<void> {
    const lease = this.config.get('CODE_DIFF_LEASE_SECONDS');
    let held = true;
    const beat = setInterval(
      () => {
        this.store
          .heartbeat(diff.id, this.workerId, lease)
          .then((ok) => {
            if (!ok) held = false;
          })
          .catch(() => undefined);
      },
      Math.max(500, (lease * 1000) / 3),
    );
    beat.unref();
    try {
      const result = await this.indexer.indexDiff(diff, () => {
        if (!held) throw new DiffLeaseLostError(diff.id);
      });
      if (result.failed_files.length > 0)
        this.logger.warn({ msg: 'diff files failed to index', diffId: diff.id, failed: result.failed_files });
      await this.store.finish(diff.id, this.workerId, 'done', result, null);
    } catch (error) {
      if (error instanceof DiffLeaseLostError) {
        this.logger.warn({ msg: 'diff lease lost; another worker owns it now', diffId: diff.id });
        return;
      }
      const details = { code: 'INDEXING_FAILED', message: (error as Error).message, attempts: diff.attempts };
      this.logger.warn({ msg: 'diff indexing failed', diffId: diff.id, ...details });
      if (diff.attempts < diff.maxAttempts)
        await this.store
          .retryLater(diff.id, this.workerId, this.config.get('CODE_DIFF_RETRY_SECONDS'), details)
          .catch(() => undefined);
      else await this.store.finish(diff.id, this.workerId, 'failed', null, details).catch(() => undefined);
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * The seed's WAL recovery: files left unindexed (their file failed, or their diff gave up) for
   * longer than CODE_DIFF_RETRY_SECONDS are queued again, one diff per repository.
   */
  recover(): Promise<number> {
    return runAsSystem('code diff worker: requeue unindexed files', () =>
      this.store.enqueueStaleFiles(
        this.config.get('CODE_DIFF_RETRY_SECONDS'),
        this.config.get('CODE_DIFF_MAX_ATTEMPTS'),
      ),
    );
  }

  @Cron(CronExpression.EVERY_DAY_AT_4AM, { name: 'code-diffs-cleanup' })
  async cleanup(): Promise<void> {
    if (!this.role.runsSchedulers) return;
    // Once per cluster: the process holding the lock runs it, the others skip this round.
    await this.lock.runExclusive('code-diffs-cleanup', async () => {
      const cutoff = new Date(Date.now() - this.config.get('CODE_DIFF_RETENTION_DAYS') * 86_400_000);
      const deleted = await runAsSystem('code diffs: cleanup', () => this.store.deleteFinishedBefore(cutoff));
      if (deleted) this.logger.log({ msg: 'finished diffs deleted', deleted });
    });
  }
}
