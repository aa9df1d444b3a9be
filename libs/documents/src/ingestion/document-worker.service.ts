import { Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import {
  failedAttemptOutcome,
  LeasedJobRunner,
  ProcessRole,
  retryDelaySeconds,
  runAsSystem,
} from '@app/platform';
import { EmbeddingRequestError } from '../embedding/openai-embedding.provider';
import { DocumentBudgetError, DocumentProcessingError, DocumentsExceptionCode } from '../documents.exception';
import type { DocumentErrorDetails } from '../documents.types';
import { DocumentProcessor, JobCancelledError, LeaseLostError } from './document-processor.service';
import { DocumentsRepository } from './documents.repository';
import { ClaimedJob, JobsRepository } from './jobs.repository';
import { DocumentsConfig } from '../documents.config';

/** Doubling from DOCUMENTS_JOB_RETRY_BASE_SECONDS, a retry never waits longer than an hour. */
const MAX_RETRY_DELAY_SECONDS = 3600;

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
 * Pulls jobs from the durable queue (the claim, lease and poll loop is LeasedJobRunner's). Runs in
 * `all` and `worker` processes (APP_ROLE); one-shot CLI commands and tests drive it with `drain()`.
 */
@Injectable()
export class DocumentWorker extends LeasedJobRunner<ClaimedJob> {
  protected readonly logger = new Logger('DocumentWorker');
  protected readonly claimReason = 'document worker: claim a job';

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: DocumentsConfig,
    private readonly jobs: JobsRepository,
    private readonly documents: DocumentsRepository,
    private readonly processor: DocumentProcessor,
    role: ProcessRole,
    @Optional() scheduler?: SchedulerRegistry,
  ) {
    super(role, Boolean(scheduler));
  }

  get concurrency(): number {
    return this.config.DOCUMENTS_WORKER_CONCURRENCY;
  }

  protected get leaseSeconds(): number {
    return this.config.DOCUMENTS_JOB_LEASE_SECONDS;
  }

  /**
   * Processes due jobs in this process until none is left (or only future retries remain), running
   * up to `concurrency` (default max(2, DOCUMENTS_WORKER_CONCURRENCY)) at once.
   */
  drain(options: { maxJobs?: number; concurrency?: number } = {}): Promise<number> {
    return this.drainJobs(
      options.maxJobs ?? Number.POSITIVE_INFINITY,
      options.concurrency ?? Math.max(2, this.concurrency),
    );
  }

  /** The queue is shared by all tenants: claiming reads across them; the job then runs as its tenant. */
  protected claimJob(): Promise<ClaimedJob | null> {
    return this.jobs.claim(
      this.workerId,
      this.leaseSeconds,
      this.config.DOCUMENTS_JOB_MAX_RUNNING_PER_TENANT,
    );
  }

  protected renewLease(job: ClaimedJob): Promise<boolean> {
    return this.jobs.heartbeat(job.id, this.workerId, this.leaseSeconds);
  }

  /** A retry due sooner than the idle poll (backoff of a few hundred ms) is picked up on time. */
  protected override async idleDelayMs(): Promise<number> {
    const due = await runAsSystem('document worker: next due job', () => this.jobs.nextDueInMs(), {
      quiet: true,
    });
    return Math.min(2000, Math.max(50, due ?? 2000));
  }

  protected async process(job: ClaimedJob, held: () => boolean): Promise<void> {
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
          if (!held()) throw new LeaseLostError(job.id);
        },
      });
    } catch (error) {
      await this.handleFailure(job, error);
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
    const final = failedAttemptOutcome(job, details.retryable) === 'fail';
    this.logger.warn({
      msg: final ? 'document job failed' : 'document job will retry',
      jobId: job.id,
      ...details,
    });
    try {
      await this.dataSource.transaction(async (em) => {
        if (final) {
          await this.jobs.fail(em, job.id, this.workerId, { ...details });
        } else {
          const delay = retryDelaySeconds(
            {
              baseSeconds: this.config.DOCUMENTS_JOB_RETRY_BASE_SECONDS,
              factor: 2,
              maxSeconds: MAX_RETRY_DELAY_SECONDS,
            },
            job.attempts,
          );
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
