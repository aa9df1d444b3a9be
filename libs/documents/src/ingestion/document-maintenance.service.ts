import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EventBus, runAsSystem } from '@app/platform';
import { EmbeddingProviders } from '../embedding/embedding-provider';
import { BulkIngestionService } from './bulk-ingestion.service';
import { DocumentWorker } from './document-worker.service';
import { DocumentsRepository } from './documents.repository';
import { JobsRepository } from './jobs.repository';
import { DocumentsConfig } from '../documents.config';

const DAY_MS = 86_400_000;

/** Recovery of abandoned jobs, retention cleanup, and scheduling re-embeds after a model change. */
@Injectable()
export class DocumentMaintenanceService {
  private readonly logger = new Logger('DocumentMaintenance');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: DocumentsConfig,
    private readonly jobs: JobsRepository,
    private readonly documents: DocumentsRepository,
    private readonly providers: EmbeddingProviders,
    private readonly worker: DocumentWorker,
    private readonly events: EventBus,
    private readonly bulk: BulkIngestionService,
  ) {}

  /**
   * Jobs whose worker died: out of attempts -> failed (and their document), otherwise back in the
   * queue. Also queues a re-embed for every tenant not yet on the configured model.
   */
  recover(): Promise<{ requeued: number; failed: number; reembeds: number }> {
    return runAsSystem('documents: recover expired jobs', () => this.recoverAll(), { quiet: true });
  }

  private async recoverAll(): Promise<{ requeued: number; failed: number; reembeds: number }> {
    const exhausted = await this.jobs.failExhaustedExpired();
    for (const job of exhausted) {
      if (!job.documentId || job.revision === null) continue;
      await this.dataSource.transaction((em) =>
        this.documents.recordFailure(em, job.documentId!, job.revision!, 'failed', {
          code: 'LEASE_EXPIRED',
          message: 'processing stopped without finishing on every attempt (worker crash or hang)',
          attempts: job.attempts,
          retryable: false,
          failed_at: new Date().toISOString(),
        }),
      );
    }
    const requeued = await this.jobs.requeueExpired();
    // A bulk load whose last job died after loading: index the segment and publish its documents.
    await this.bulk
      .completeLoads()
      .catch((error: Error) =>
        this.logger.warn({ msg: 'bulk segment not indexed yet', error: error.message }),
      );
    const reembeds = await this.scheduleReembeds();
    if (requeued + exhausted.length + reembeds > 0) {
      this.logger.log({ msg: 'document jobs recovered', requeued, failed: exhausted.length, reembeds });
      this.worker.wake();
    }
    return { requeued, failed: exhausted.length, reembeds };
  }

  scheduleReembeds(): Promise<number> {
    return runAsSystem('documents: schedule re-embeds', () => this.scheduleReembedsAll(), { quiet: true });
  }

  private async scheduleReembedsAll(): Promise<number> {
    const model = this.providers.configured.model;
    let queued = 0;
    for (const tenantId of await this.documents.tenantsNotOnModel(model)) {
      if (await this.jobs.enqueueReembed(tenantId, model, this.config.DOCUMENTS_JOB_MAX_ATTEMPTS)) queued++;
    }
    return queued;
  }

  /** Finished jobs past their retention, and soft-deleted documents past theirs. */
  cleanup(now = new Date()): Promise<{ jobs: number; documents: number }> {
    return runAsSystem('documents: purge expired jobs and deleted documents', () => this.cleanupAll(now));
  }

  private async cleanupAll(now: Date): Promise<{ jobs: number; documents: number }> {
    const jobs = await this.jobs.deleteFinishedBefore(
      new Date(now.getTime() - this.config.DOCUMENTS_JOB_RETENTION_DAYS * DAY_MS),
    );
    const purged = await this.documents.purgeDeleted(
      new Date(now.getTime() - this.config.DOCUMENTS_DELETED_RETENTION_DAYS * DAY_MS),
    );
    const byTenant = new Map<string, string[]>();
    for (const { tenantId, id } of purged) byTenant.set(tenantId, [...(byTenant.get(tenantId) ?? []), id]);
    for (const [tenantId, documentIds] of byTenant)
      this.events.emit('documents.changed', { tenantId, documentIds, reason: 'purged' });
    if (jobs + purged.length > 0)
      this.logger.log({ msg: 'document cleanup', jobs, documents: purged.length });
    return { jobs, documents: purged.length };
  }
}
