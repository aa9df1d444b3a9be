import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DataSource } from 'typeorm';
import { AppConfig, ProcessRole, runAsSystem, runAsTenant } from '@app/platform';
import { EmbeddingRequestError } from '../embedding/openai-embedding.provider';
import { DocumentBudgetError, DocumentProcessingError, DocumentsExceptionCode } from '../documents.exception';
import type { DocumentErrorDetails } from '../documents.types';
import { DocumentProcessor, JobCancelledError, LeaseLostError } from './document-processor.service';
import { DocumentsRepository } from './documents.repository';
import { ClaimedJob, JobsRepository } from './jobs.repository';

const IDLE_POLL_MS = 2000;

function describeFailure(error: unknown, attempts: number): DocumentErrorDetails {
  const retryable =
    error instanceof DocumentProcessingError
      ? error.retryable
      : error instanceof EmbeddingRequestError
        ? error.retryable
        : true;
  const code =
    error instanceof DocumentProcessingError
      ? error.code
      : error instanceof EmbeddingRequestError
        ? 'EMBEDDINGS_FAILED'
        : DocumentsExceptionCode.INGESTION_FAILED;
  return {
    code,
    message: error instanceof Error ? error.message : String(error),
    attempts,
    retryable,
    failed_at: new Date().toISOString(),
    ...(error instanceof DocumentBudgetError ? { limit: { ...error.limit } } : {}),
  };
}

/**
 * Pulls jobs from the durable queue. Runs in `all` and `worker` processes (APP_ROLE); one-shot
 * CLI commands and tests drive it explicitly with `drain()`.
 */
@Injectable()
export class DocumentWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DocumentWorker');
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly active = new Set<Promise<void>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly jobs: JobsRepository,
    private readonly documents: DocumentsRepository,
    private readonly processor: DocumentProcessor,
    private readonly role: ProcessRole,
    @Optional() private readonly scheduler?: SchedulerRegistry,
  ) {}

  get concurrency(): number {
    return this.config.get('DOCUMENTS_WORKER_CONCURRENCY');
  }

  /**
   * Background processing runs only in a server process whose role claims jobs (`all`, `worker`),
   * never in an `api` replica nor in one-shot CLI contexts.
   */
  get autoStarts(): boolean {
    return Boolean(this.scheduler) && this.role.runsJobs && this.concurrency > 0;
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

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), delayMs);
    this.timer.unref();
  }

  private async fill(): Promise<void> {
    if (this.stopped) return;
    try {
      while (this.running < this.concurrency && !this.stopped) {
        const job = await this.claim();
        if (!job) break;
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
    if (!this.stopped) {
      const due = await runAsSystem('document worker: next due job', () => this.jobs.nextDueInMs(), {
        quiet: true,
      }).catch(() => null);
      this.schedule(Math.min(IDLE_POLL_MS, Math.max(50, due ?? IDLE_POLL_MS)));
    }
  }

  /**
   * Processes due jobs in this process until none is left (or only future retries remain), running
   * up to `concurrency` (default max(2, DOCUMENTS_WORKER_CONCURRENCY)) at once.
   */
  async drain(options: { maxJobs?: number; concurrency?: number } = {}): Promise<number> {
    const maxJobs = options.maxJobs ?? Number.POSITIVE_INFINITY;
    const parallel = Math.max(1, options.concurrency ?? Math.max(2, this.concurrency));
    let claimed = 0;
    const loop = async () => {
      while (claimed < maxJobs) {
        const job = await this.claim();
        if (!job) return;
        claimed++;
        await this.execute(job);
      }
    };
    await Promise.all(Array.from({ length: parallel }, loop));
    return claimed;
  }

  /** The queue is shared by all tenants: claiming reads across them; the job then runs as its tenant. */
  private claim(): Promise<ClaimedJob | null> {
    return runAsSystem(
      'document worker: claim a job',
      () => this.jobs.claim(this.workerId, this.config.get('DOCUMENTS_JOB_LEASE_SECONDS')),
      { quiet: true },
    );
  }

  private execute(job: ClaimedJob): Promise<void> {
    return runAsTenant(job.tenantId, () => this.executeAsTenant(job));
  }

  private async executeAsTenant(job: ClaimedJob): Promise<void> {
    const leaseSeconds = this.config.get('DOCUMENTS_JOB_LEASE_SECONDS');
    let held = true;
    const beat = setInterval(
      () => {
        this.jobs
          .heartbeat(job.id, this.workerId, leaseSeconds)
          .then((ok) => {
            if (!ok) held = false;
          })
          .catch(() => undefined);
      },
      Math.max(500, (leaseSeconds * 1000) / 3),
    );
    beat.unref();
    try {
      if (job.attempts > job.maxAttempts) {
        throw new DocumentProcessingError(
          DocumentsExceptionCode.INGESTION_FAILED,
          `gave up after ${job.maxAttempts} attempts: the worker stopped on every one (crash or hang)`,
          false,
        );
      }
      await this.processor.run(job, {
        workerId: this.workerId,
        assertHeld: () => {
          if (!held) throw new LeaseLostError(job.id);
        },
      });
    } catch (error) {
      await this.handleFailure(job, error);
    } finally {
      clearInterval(beat);
    }
  }

  private async handleFailure(job: ClaimedJob, error: unknown): Promise<void> {
    if (error instanceof LeaseLostError) {
      this.logger.warn({ msg: 'job lease lost; another worker owns it now', jobId: job.id });
      return;
    }
    if (error instanceof JobCancelledError) {
      // Deleting the document already cancelled the job and dropped what it wrote.
      this.logger.log({ msg: 'document job cancelled: its document was deleted', jobId: job.id });
      return;
    }
    const details = describeFailure(error, job.attempts);
    const final = !details.retryable || job.attempts >= job.maxAttempts;
    this.logger.warn({
      msg: final ? 'document job failed' : 'document job will retry',
      jobId: job.id,
      ...details,
    });
    try {
      await this.dataSource.transaction(async (em) => {
        if (final) {
          await this.jobs.finish(em, job.id, this.workerId, 'failed', { ...details });
        } else {
          const delay = this.config.get('DOCUMENTS_JOB_RETRY_BASE_SECONDS') * 2 ** (job.attempts - 1);
          await this.jobs.retryLater(em, job.id, this.workerId, delay, { ...details });
        }
        if (job.documentId && job.revision !== null) {
          await this.documents.recordFailure(
            em,
            job.documentId,
            job.revision,
            final ? 'failed' : 'queued',
            details,
          );
        }
      });
    } catch (recordError) {
      // The lease will expire and the job be retried; nothing is lost.
      this.logger.error({
        msg: 'could not record a job failure',
        jobId: job.id,
        error: (recordError as Error).message,
      });
    }
  }
}
