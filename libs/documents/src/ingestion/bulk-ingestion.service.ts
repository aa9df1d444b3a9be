import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseInfo, EventBus, runAsSystem } from '@app/platform';
import type { EmbeddingProvider } from '../embedding/embedding-provider';
import { EmbeddingProviders } from '../embedding/embedding-provider';
import { TermStatsRepository } from '../search/term-stats.repository';
import { BulkSegmentsRepository, IndexBuildSettings, LoadedJob } from './bulk-segments.repository';
import { ChunksRepository, modelIndexName } from './chunks.repository';
import { DocumentsRepository } from './documents.repository';
import { IngestionStageClock } from './ingestion-stage-clock.service';
import { DocumentsConfig } from '../documents.config';

/**
 * The bulk path (native server): a bulk job writes its vectors by binary COPY into the model's open
 * segment, which the serving HNSW index does not cover, and ends `loaded`. When no bulk job is left
 * queued or running, one index build (maintenance_work_mem, parallel workers) covers the segment and
 * replaces the serving index; then each loaded document switches to its new version and is `done`.
 * Searches answer from the previous index throughout. ARCHITECTURE.md "Bulk ingestion".
 */
@Injectable()
export class BulkIngestionService {
  private readonly logger = new Logger('BulkIngestion');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: DocumentsConfig,
    private readonly database: DatabaseInfo,
    private readonly segments: BulkSegmentsRepository,
    private readonly documents: DocumentsRepository,
    private readonly chunks: ChunksRepository,
    private readonly termStats: TermStatsRepository,
    private readonly providers: EmbeddingProviders,
    private readonly events: EventBus,
    private readonly clock: IngestionStageClock,
  ) {}

  private get settings(): IndexBuildSettings {
    return {
      maintenanceWorkMem: this.config.DOCUMENTS_BULK_MAINTENANCE_WORK_MEM,
      workers: this.config.DOCUMENTS_BULK_INDEX_WORKERS,
    };
  }

  /**
   * The segment this job writes its vectors in, or null for the normal path: the embedded database
   * (one connection: an index build would stop every search), a job embedding for two models (a model
   * change in progress), or a job neither marked bulk nor in a queue at the threshold.
   */
  async segmentFor(
    job: { tenantId: string; bulk: boolean },
    models: EmbeddingProvider[],
  ): Promise<number | null> {
    if (this.database.backend !== 'native' || models.length !== 1) return null;
    let bulk = job.bulk;
    const threshold = this.config.DOCUMENTS_BULK_MIN_QUEUED_JOBS;
    if (!bulk && threshold > 0 && (await this.segments.queueDepth(job.tenantId)) >= threshold) {
      await this.segments.markQueuedBulk(job.tenantId);
      bulk = true;
    }
    if (!bulk) return null;
    const [model] = models;
    const segment = await this.segments.open(
      modelIndexName(model.model),
      model.model,
      await model.dimensions(),
      this.settings,
    );
    await this.segments.keywordIndexLoading(true);
    return segment;
  }

  /**
   * Seals the open segment once no bulk job is queued or running, then publishes every loaded
   * document the serving index covers. Idempotent: a crash anywhere leaves state the next call (the
   * last bulk job, the recovery pass, `ingest --bulk`) finishes. Returns the documents published.
   */
  completeLoads(): Promise<number> {
    if (this.database.backend !== 'native') return Promise.resolve(0);
    return runAsSystem('bulk ingestion: index the loaded segment and publish its documents', async () => {
      const provider = this.providers.configured;
      let state = await this.segments.state(provider.model);
      if (!state) return 0;
      const segment = state.loadingSegment;
      if (segment !== null && (await this.segments.pendingBulkJobs()) === 0) {
        const started = performance.now();
        const dimensions = await provider.dimensions();
        const sealed = await this.clock.time('bulk index build', () =>
          this.segments.seal(provider.model, dimensions, segment, this.settings),
        );
        if (sealed)
          this.logger.log({
            msg: 'bulk segment indexed',
            model: provider.model,
            segment,
            ms: Math.round(performance.now() - started),
          });
        state = await this.segments.state(provider.model);
      }
      if (!state) return 0;
      // No segment loading: the keyword index back to direct insertion (a load that opens meanwhile only
      // loses the pending list's speed-up).
      if (state.loadingSegment === null) await this.segments.keywordIndexLoading(false);
      const loaded = await this.segments.loadedJobs(state.servingBound);
      return this.clock.time('bulk publish', async () => {
        let published = 0;
        for (const job of loaded) if (await this.publish(job)) published++;
        // The tables grew by the whole load: statistics, or the planner serves the loaded tenants by exact scans.
        if (published > 0) await this.segments.analyze();
        return published;
      });
    });
  }

  /** The normal path's version switch, for a loaded job: one transaction per document. */
  private async publish(job: LoadedJob): Promise<boolean> {
    const switched = await this.dataSource.transaction(async (em) => {
      const [current]: Array<{ revision: number; deleted_at: Date | null; active_version: number }> =
        await em.query(
          `SELECT revision, deleted_at, active_version FROM documents WHERE id = $1 FOR UPDATE`,
          [job.documentId],
        );
      if (!current || current.deleted_at || current.revision !== job.revision) {
        await this.segments.finishLoaded(em, job.id, 'superseded');
        return false;
      }
      if (!(await this.segments.finishLoaded(em, job.id, 'done'))) return false;
      const target = current.active_version + 1;
      const [{ count }]: Array<{ count: number }> = await em.query(
        `SELECT count(*)::int AS count FROM document_chunks WHERE document_id = $1 AND chunk_version = $2`,
        [job.documentId, target],
      );
      await this.termStats.switchVersion(em, job.tenantId, job.documentId, current.active_version, target);
      await em.query(
        `UPDATE documents SET active_version = $2, status = 'done', processing_progress = 100, total_chunks = $3,
                error_details = NULL, updated_at = now()
         WHERE id = $1`,
        [job.documentId, target, count],
      );
      await this.chunks.deleteOtherVersions(em, job.documentId, target);
      await this.documents.bumpGeneration(em, job.tenantId);
      return current.active_version > 0 ? 'updated' : 'ingested';
    });
    if (!switched) return false;
    this.events.emit('documents.changed', {
      tenantId: job.tenantId,
      documentIds: [job.documentId],
      reason: switched,
    });
    return true;
  }
}
