import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig, EventBus } from '@app/platform';
import { ChunkDraft, chunkBlocks } from '../chunking/chunker.util';
import { EmbeddingProvider, EmbeddingProviders } from '../embedding/embedding-provider';
import { DocumentProcessingError, DocumentsExceptionCode } from '../documents.exception';
import { parseDocument } from '../parsing/document-parser';
import { TermStatsRepository } from '../search/term-stats.repository';
import { ChunksRepository, EmbeddingSource } from './chunks.repository';
import { DocumentsRepository } from './documents.repository';
import { ClaimedJob, JobsRepository } from './jobs.repository';

/** Lets a long job notice that its lease was lost (another worker reclaimed it) and stop. */
export interface JobLease {
  workerId: string;
  assertHeld(): void;
}

export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`lease on job ${jobId} was lost`);
    this.name = 'LeaseLostError';
  }
}

const same = (
  draft: ChunkDraft,
  stored: { sourceHash: string; chunkType: string; pageNumber: number | null; slideNumber: number | null },
) =>
  draft.sourceHash === stored.sourceHash &&
  draft.chunkType === stored.chunkType &&
  draft.pageNumber === stored.pageNumber &&
  draft.slideNumber === stored.slideNumber;

/**
 * Runs one claimed job to completion. Every step is idempotent, so a job redone after a crash
 * resumes from what the previous attempt committed and ends in the same state as a clean run.
 */
@Injectable()
export class DocumentProcessor {
  private readonly logger = new Logger('DocumentProcessor');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly documents: DocumentsRepository,
    private readonly chunks: ChunksRepository,
    private readonly jobs: JobsRepository,
    private readonly providers: EmbeddingProviders,
    private readonly events: EventBus,
    private readonly termStats: TermStatsRepository,
  ) {}

  async run(job: ClaimedJob, lease: JobLease): Promise<void> {
    if (job.kind === 'reembed') return this.reembed(job, lease);
    return this.ingest(job, lease);
  }

  /** The models a tenant's chunks need vectors for: the configured one, and the one search serves. */
  private async modelsFor(tenantId: string): Promise<EmbeddingProvider[]> {
    const state = await this.documents.corpusState(tenantId);
    const models = [this.providers.configured];
    const active = state?.activeModel ? this.providers.resolve(state.activeModel) : undefined;
    if (active && active.model !== this.providers.configured.model) models.push(active);
    for (const provider of models)
      await this.chunks.ensureModelIndex(provider.model, await provider.dimensions());
    return models;
  }

  private async ingest(job: ClaimedJob, lease: JobLease): Promise<void> {
    const document = job.documentId ? await this.documents.findOne(job.tenantId, job.documentId) : null;
    if (!document || document.deletedAt || document.revision !== job.revision || !job.content) {
      await this.dataSource.transaction((em) => this.jobs.finish(em, job.id, lease.workerId, 'superseded'));
      return;
    }
    await this.documents.markProcessing(document.id, document.revision);
    const blocks = await parseDocument(job.content, document.format);
    const drafts = chunkBlocks(blocks, {
      targetChars: this.config.get('DOCUMENTS_CHUNK_TARGET_CHARS'),
      overlapChars: this.config.get('DOCUMENTS_CHUNK_OVERLAP_CHARS'),
    });
    if (drafts.length === 0) {
      throw new DocumentProcessingError(
        DocumentsExceptionCode.DOCUMENT_EMPTY,
        'The document has no text to index.',
        false,
      );
    }
    const models = await this.modelsFor(job.tenantId);
    const target = document.activeVersion + 1;

    // Resume: keep what an earlier attempt of this revision committed, drop anything else at the target version.
    const stored = await this.chunks.atVersion(document.id, target);
    const kept = new Map<number, { id: string; models: string[] }>();
    const stale: string[] = [];
    for (const row of stored) {
      const draft = drafts[row.chunkIndex];
      if (draft && same(draft, row)) kept.set(row.chunkIndex, { id: row.id, models: row.models });
      else stale.push(row.id);
    }
    await this.chunks.deleteByIds(stale);

    const batchSize = this.config.get('EMBEDDINGS_BATCH_SIZE');
    const needEmbedding = drafts.filter(
      (d) => !kept.has(d.chunkIndex) || models.some((m) => !kept.get(d.chunkIndex)!.models.includes(m.model)),
    );
    let completed = drafts.length - needEmbedding.length;
    for (let start = 0; start < needEmbedding.length; start += batchSize) {
      lease.assertHeld();
      const batch = needEmbedding.slice(start, start + batchSize);
      const sources = new Map<number, Map<string, EmbeddingSource>>();
      for (const provider of models) {
        const needing = batch.filter((d) => !kept.get(d.chunkIndex)?.models.includes(provider.model));
        const reusable = await this.chunks.reusableEmbeddings(
          job.tenantId,
          needing.map((d) => d.sourceHash),
          provider.model,
        );
        const fresh = [...new Set(needing.filter((d) => !reusable.has(d.sourceHash)).map((d) => d.text))];
        const vectors = fresh.length > 0 ? await provider.embed(fresh) : [];
        const byText = new Map(fresh.map((text, i) => [text, vectors[i]]));
        for (const draft of needing) {
          const copyFrom = reusable.get(draft.sourceHash);
          const source: EmbeddingSource = copyFrom
            ? { copyFromChunkId: copyFrom }
            : { vector: byText.get(draft.text)! };
          if (!sources.has(draft.chunkIndex)) sources.set(draft.chunkIndex, new Map());
          sources.get(draft.chunkIndex)!.set(provider.model, source);
        }
      }
      lease.assertHeld();
      completed += batch.length;
      await this.dataSource.transaction(async (em) => {
        const fresh = batch.filter((d) => !kept.has(d.chunkIndex));
        const ids = await this.chunks.insertChunks(em, job.tenantId, document.id, target, fresh);
        const idByIndex = new Map(fresh.map((d, i) => [d.chunkIndex, ids[i]]));
        for (const draft of batch) {
          const chunkId = kept.get(draft.chunkIndex)?.id ?? idByIndex.get(draft.chunkIndex)!;
          for (const [model, source] of sources.get(draft.chunkIndex) ?? []) {
            await this.chunks.insertEmbedding(em, job.tenantId, chunkId, model, source);
          }
        }
        await this.documents.setProgress(
          em,
          document.id,
          document.revision,
          Math.min(99, Math.floor((completed / drafts.length) * 100)),
        );
      });
    }

    const switched = await this.dataSource.transaction(async (em) => {
      const [current]: Array<{ revision: number; deleted_at: Date | null; active_version: number }> =
        await em.query(
          `SELECT revision, deleted_at, active_version FROM documents WHERE id = $1 FOR UPDATE`,
          [document.id],
        );
      if (!current || current.deleted_at || current.revision !== document.revision) {
        await this.jobs.finish(em, job.id, lease.workerId, 'superseded');
        return false;
      }
      if (!(await this.jobs.finish(em, job.id, lease.workerId, 'done'))) throw new LeaseLostError(job.id);
      await this.termStats.apply(em, job.tenantId, document.id, current.active_version, -1);
      await this.termStats.apply(em, job.tenantId, document.id, target, 1);
      await em.query(
        `UPDATE documents SET active_version = $2, status = 'done', processing_progress = 100, total_chunks = $3,
                error_details = NULL, updated_at = now()
         WHERE id = $1`,
        [document.id, target, drafts.length],
      );
      await this.chunks.deleteOtherVersions(em, document.id, target);
      await this.documents.bumpGeneration(em, job.tenantId);
      return true;
    });
    if (switched) {
      this.logger.log({
        msg: 'document ingested',
        documentId: document.id,
        chunks: drafts.length,
        version: target,
      });
      this.events.emit('documents.changed', {
        tenantId: job.tenantId,
        documentIds: [document.id],
        reason: document.activeVersion > 0 ? 'updated' : 'ingested',
      });
    }
  }

  /** Backfills vectors for a new model, then moves the tenant's searches to it in one step. */
  private async reembed(job: ClaimedJob, lease: JobLease): Promise<void> {
    const model = job.targetModel ?? '';
    const provider = this.providers.resolve(model);
    if (!provider || provider.model !== this.providers.configured.model) {
      await this.dataSource.transaction((em) =>
        this.jobs.finish(em, job.id, lease.workerId, 'superseded', {
          message: `model ${model} is no longer configured`,
        }),
      );
      return;
    }
    await this.chunks.ensureModelIndex(model, await provider.dimensions());
    const batchSize = this.config.get('EMBEDDINGS_BATCH_SIZE');
    for (;;) {
      lease.assertHeld();
      const missing = await this.chunks.missingModel(job.tenantId, model, batchSize);
      if (missing.length === 0) break;
      const vectors = await provider.embed(missing.map((c) => c.text));
      lease.assertHeld();
      await this.dataSource.transaction(async (em) => {
        for (let i = 0; i < missing.length; i++) {
          await this.chunks.insertEmbedding(em, job.tenantId, missing[i].id, model, { vector: vectors[i] });
        }
      });
    }
    const switched = await this.dataSource.transaction(async (em) => {
      if ((await this.chunks.countMissingModel(em, job.tenantId, model)) > 0) return false;
      if (!(await this.jobs.finish(em, job.id, lease.workerId, 'done'))) throw new LeaseLostError(job.id);
      await this.documents.setActiveModel(em, job.tenantId, model);
      return true;
    });
    if (!switched)
      throw new DocumentProcessingError(
        DocumentsExceptionCode.INGESTION_FAILED,
        'new chunks arrived during re-embedding',
        true,
      );
    // Announced before the old vectors go: a search still on the old model that reads them while they
    // are deleted must land under a search cache version that is already replaced.
    this.events.emit('documents.changed', { tenantId: job.tenantId, documentIds: [], reason: 'reembedded' });
    await this.chunks.deleteEmbeddingsExcept(job.tenantId, [model]);
    this.logger.log({ msg: 'tenant switched embedding model', tenantId: job.tenantId, model });
  }
}
