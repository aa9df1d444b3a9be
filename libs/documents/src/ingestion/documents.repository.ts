import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TermStatsRepository } from '../search/term-stats.repository';
import { DataSource, EntityManager } from 'typeorm';
import { exceededQueueLimit } from '@app/platform';
import { DocumentEntity } from '../entities/document.entity';
import { DocumentJobEntity } from '../entities/document-job.entity';
import { ChunksRepository } from './chunks.repository';
import { JobsRepository } from './jobs.repository';
import { DocumentsException } from '../documents.exception';
import type {
  DocumentErrorDetails,
  DocumentFormat,
  DocumentListQuery,
  DocumentMetadata,
} from '../documents.types';

export interface NewDocumentRow {
  tenantId: string;
  userId: string;
  filename: string;
  contentType: string;
  format: DocumentFormat;
  size: number;
  metadata: DocumentMetadata;
  sourceHash: string;
  content: Buffer;
  maxAttempts: number;
  /** Null for a code file's chunks: the diff queue's caps govern them. */
  queueLimits: IngestQueueLimits | null;
  /** Model a tenant's first corpus row starts on. */
  initialModel: string;
}

/** What one tenant may have queued or running at once (DOCUMENTS_MAX_QUEUED_*_PER_TENANT). */
export interface IngestQueueLimits {
  maxJobs: number;
  maxBytes: number;
}

export type ContentReplacement = Omit<NewDocumentRow, 'tenantId' | 'userId' | 'initialModel'>;

export interface CorpusState {
  generation: number;
  activeModel: string | null;
}

/** Documents, their corpus generation and the enqueueing of their jobs. All SQL for these lives here. */
@Injectable()
export class DocumentsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly termStats: TermStatsRepository,
    private readonly jobs: JobsRepository,
    private readonly chunks: ChunksRepository,
  ) {}

  private get documents() {
    return this.dataSource.getRepository(DocumentEntity);
  }

  /** The document row and its ingestion job in one transaction: neither exists without the other. */
  createWithJob(row: NewDocumentRow): Promise<DocumentEntity> {
    return this.dataSource.transaction(async (em) => {
      await em.query(
        `INSERT INTO document_corpus (tenant_id, generation, active_model) VALUES ($1, 0, $2) ON CONFLICT (tenant_id) DO NOTHING`,
        [row.tenantId, row.initialModel],
      );
      const document = await em.getRepository(DocumentEntity).save(
        em.getRepository(DocumentEntity).create({
          tenantId: row.tenantId,
          userId: row.userId,
          filename: row.filename,
          contentType: row.contentType,
          format: row.format,
          size: row.size,
          docMetadata: row.metadata,
          sourceHash: row.sourceHash,
          status: 'queued',
          revision: 1,
          activeVersion: 0,
        }),
      );
      await this.insertIngestJob(em, document, row.content, row.maxAttempts, row.queueLimits);
      return document;
    });
  }

  /**
   * New content for an existing document: bumps the revision, supersedes its queued jobs and
   * enqueues one for the new revision, atomically. Search keeps serving the active version meanwhile.
   */
  replaceContentWithJob(
    tenantId: string,
    id: string,
    replacement: ContentReplacement,
  ): Promise<DocumentEntity | null> {
    return this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(DocumentEntity);
      const document = await repo.findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
      if (!document || document.deletedAt) return null;
      Object.assign(document, {
        filename: replacement.filename,
        contentType: replacement.contentType,
        format: replacement.format,
        size: replacement.size,
        docMetadata: replacement.metadata,
        sourceHash: replacement.sourceHash,
        status: 'queued',
        processingProgress: 0,
        errorDetails: null,
        revision: document.revision + 1,
      });
      await repo.save(document);
      await em.query(
        `UPDATE document_jobs SET status = 'superseded', finished_at = now(), updated_at = now()
         WHERE document_id = $1 AND kind = 'ingest' AND status = 'queued'`,
        [id],
      );
      await this.jobs.resolveFailedOfDocument(em, id, 'replaced');
      await this.insertIngestJob(
        em,
        document,
        replacement.content,
        replacement.maxAttempts,
        replacement.queueLimits,
      );
      return document;
    });
  }

  /**
   * Queues a failed document again with the bytes its failed job kept: same revision (so the worker
   * resumes what an earlier attempt committed), fresh attempts, retry_count + 1. The failed job is
   * resolved as retried. Says why when it cannot.
   */
  retryFailedWithJob(
    tenantId: string,
    id: string,
    maxAttempts: number,
    queueLimits: IngestQueueLimits,
  ): Promise<
    | { document: DocumentEntity }
    | { refused: 'not_found' | 'not_failed' | 'content_unavailable'; document?: DocumentEntity }
  > {
    return this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(DocumentEntity);
      const document = await repo.findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
      if (!document || document.deletedAt) return { refused: 'not_found' as const };
      if (document.status !== 'failed') return { refused: 'not_failed' as const, document };
      const content = await this.jobs.failedContentFor(em, id, document.revision);
      if (!content) return { refused: 'content_unavailable' as const, document };
      Object.assign(document, {
        status: 'queued',
        processingProgress: 0,
        errorDetails: null,
        retryCount: document.retryCount + 1,
      });
      await repo.save(document);
      await this.jobs.resolveFailedOfDocument(em, id, 'retried');
      await this.insertIngestJob(em, document, content, maxAttempts, queueLimits);
      return { document };
    });
  }

  /**
   * The tenant's live failed documents, oldest failure first, split by whether their failed job kept
   * the bytes a retry needs.
   */
  async failedIds(tenantId: string, withContent: boolean, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT d.id FROM documents d
       WHERE d.tenant_id = $1 AND d.status = 'failed' AND d.deleted_at IS NULL
         AND ${withContent ? '' : 'NOT '}EXISTS (
           SELECT 1 FROM document_jobs j
           WHERE j.document_id = d.id AND j.revision = d.revision AND j.kind = 'ingest'
             AND j.status = 'failed' AND j.content IS NOT NULL)
       ORDER BY d.updated_at, d.id LIMIT $2`,
      [tenantId, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Refuses (429) an upload that would take the tenant's queued ingestion past its limits. A code
   * file's chunk jobs do not count: the diff queue caps them. The tenant's advisory lock (held to
   * the end of the transaction) serialises its enqueues, so concurrent uploads count each other.
   */
  private async checkQueueRoom(
    em: EntityManager,
    tenantId: string,
    bytes: number,
    limits: IngestQueueLimits,
  ) {
    await this.jobs.queue.lockTenant(em, tenantId);
    const [queued]: Array<{ jobs: number; bytes: string }> = await em.query(
      `SELECT count(*)::int AS jobs, COALESCE(sum(octet_length(j.content)), 0)::bigint AS bytes
       FROM document_jobs j JOIN documents d ON d.id = j.document_id
       WHERE j.tenant_id = $1 AND j.status IN ('queued', 'running')
         AND d.doc_metadata->>'source' IS DISTINCT FROM 'code'`,
      [tenantId],
    );
    const exceeded = exceededQueueLimit([
      { key: 'DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT', limit: limits.maxJobs, queued: queued.jobs, adding: 1 },
      {
        key: 'DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT',
        limit: limits.maxBytes,
        queued: Number(queued.bytes),
        adding: bytes,
      },
    ]);
    if (exceeded) throw DocumentsException.queueFull(exceeded);
  }

  /** Queues a document's ingestion, unless the tenant's queued uploads are at their limits. */
  private async insertIngestJob(
    em: EntityManager,
    document: DocumentEntity,
    content: Buffer,
    maxAttempts: number,
    limits: IngestQueueLimits | null,
  ) {
    if (limits) await this.checkQueueRoom(em, document.tenantId, content.length, limits);
    await em.getRepository(DocumentJobEntity).insert({
      tenantId: document.tenantId,
      documentId: document.id,
      kind: 'ingest',
      status: 'queued',
      revision: document.revision,
      content,
      maxAttempts,
    });
  }

  async updateMetadata(tenantId: string, id: string, metadata: DocumentMetadata): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.query(
        `UPDATE documents SET doc_metadata = $3::jsonb, updated_at = now() WHERE tenant_id = $1 AND id = $2`,
        [tenantId, id, JSON.stringify(metadata)],
      );
      await this.bumpGeneration(em, tenantId);
    });
  }

  findOne(tenantId: string, id: string): Promise<DocumentEntity | null> {
    return this.documents.findOne({ where: { tenantId, id } });
  }

  findLatestByFilename(tenantId: string, filename: string): Promise<DocumentEntity | null> {
    return this.documents
      .createQueryBuilder('d')
      .where('d.tenant_id = :tenantId AND d.filename = :filename AND d.deleted_at IS NULL', {
        tenantId,
        filename,
      })
      .orderBy('d.created_at', 'DESC')
      .getOne();
  }

  async list(tenantId: string, query: DocumentListQuery & { limit: number; offset: number }) {
    const qb = this.documents.createQueryBuilder('d').where('d.tenant_id = :tenantId', { tenantId });
    if (!query.includeDeleted) qb.andWhere('d.deleted_at IS NULL');
    if (query.status) qb.andWhere('d.status = :status', { status: query.status });
    if (query.format) qb.andWhere('d.format = :format', { format: query.format });
    if (query.contentType) qb.andWhere('d.content_type = :contentType', { contentType: query.contentType });
    if (query.filename) qb.andWhere('d.filename = :filename', { filename: query.filename });
    if (query.metadata)
      qb.andWhere('d.doc_metadata @> CAST(:metadata AS jsonb)', { metadata: JSON.stringify(query.metadata) });
    // Code documents (the code lib's chunks, private to the user who sent the code) are not listed to the
    // tenant; the code tools and /api/code serve them to their owner.
    qb.andWhere(`NOT (d.doc_metadata @> '{"source": "code"}'::jsonb)`);
    const [items, total] = await qb
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .take(query.limit)
      .skip(query.offset)
      .getManyAndCount();
    return { items, total };
  }

  /**
   * Sets or clears deleted_at and bumps the corpus generation in the same transaction. Deleting also
   * cancels the document's ingestion job, drops the chunks that job wrote, and drops the document's
   * vectors (restoring re-embeds them). The row lock orders this against a running job's batch
   * writes (`lockLive`): a batch either commits first and is dropped here, or sees the delete.
   */
  setDeleted(tenantId: string, id: string, deleted: boolean): Promise<DocumentEntity | null> {
    return this.dataSource.transaction(async (em) => {
      const repo = em.getRepository(DocumentEntity);
      const document = await repo.findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
      if (!document) return null;
      if (Boolean(document.deletedAt) === deleted) return document;
      document.deletedAt = deleted ? new Date() : null;
      if (deleted) {
        const cancelled = await this.jobs.cancelForDocument(em, id);
        if (cancelled > 0 && document.activeVersion === 0) {
          document.status = 'failed';
          document.processingProgress = 0;
          document.errorDetails = {
            code: 'DOCUMENT_DELETED',
            message: 'The document was deleted while it was being processed; upload it again to index it.',
            attempts: 0,
            retryable: false,
            failed_at: new Date().toISOString(),
          };
        } else if (cancelled > 0) {
          document.status = 'done';
          document.processingProgress = 100;
        }
        await this.chunks.deleteUnactivated(em, id, document.activeVersion);
        await this.chunks.deleteEmbeddingsOfDocument(em, id);
      }
      await repo.save(document);
      await this.termStats.apply(em, tenantId, id, document.activeVersion, deleted ? -1 : 1);
      await this.bumpGeneration(em, tenantId);
      return document;
    });
  }

  /** Hard-deletes documents soft-deleted before `cutoff` (chunks, embeddings and jobs cascade). */
  purgeDeleted(cutoff: Date): Promise<Array<{ tenantId: string; id: string }>> {
    return this.dataSource.transaction(async (em) => {
      const [rows]: [Array<{ tenant_id: string; id: string }>, number] = await em.query(
        `DELETE FROM documents WHERE deleted_at IS NOT NULL AND deleted_at < $1 RETURNING tenant_id, id`,
        [cutoff],
      );
      for (const tenantId of new Set(rows.map((r) => r.tenant_id))) await this.bumpGeneration(em, tenantId);
      return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
    });
  }

  /**
   * Inside a job's write transaction: locks the document row against a concurrent delete and says
   * whether it is still live, so no chunk is written after the document was deleted.
   */
  async lockLive(em: EntityManager, id: string): Promise<boolean> {
    const rows: Array<{ deleted_at: Date | null }> = await em.query(
      `SELECT deleted_at FROM documents WHERE id = $1 FOR SHARE`,
      [id],
    );
    return rows.length > 0 && rows[0].deleted_at === null;
  }

  async isLive(id: string): Promise<boolean> {
    const rows: Array<{ deleted_at: Date | null }> = await this.dataSource.query(
      `SELECT deleted_at FROM documents WHERE id = $1`,
      [id],
    );
    return rows.length > 0 && rows[0].deleted_at === null;
  }

  async markProcessing(id: string, revision: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE documents SET status = 'processing', processing_progress = 1, updated_at = now()
       WHERE id = $1 AND revision = $2 AND deleted_at IS NULL`,
      [id, revision],
    );
  }

  async setProgress(em: EntityManager, id: string, revision: number, progress: number): Promise<void> {
    await em.query(`UPDATE documents SET processing_progress = $3 WHERE id = $1 AND revision = $2`, [
      id,
      revision,
      progress,
    ]);
  }

  async recordFailure(
    em: EntityManager,
    id: string,
    revision: number,
    status: 'queued' | 'failed',
    details: DocumentErrorDetails,
  ): Promise<void> {
    await em.query(
      `UPDATE documents SET status = $3, error_details = $4::jsonb, updated_at = now() WHERE id = $1 AND revision = $2`,
      [id, revision, status, JSON.stringify(details)],
    );
  }

  async corpusState(tenantId: string): Promise<CorpusState | null> {
    const rows: Array<{ generation: number; active_model: string | null }> = await this.dataSource.query(
      `SELECT generation, active_model FROM document_corpus WHERE tenant_id = $1`,
      [tenantId],
    );
    return rows[0] ? { generation: Number(rows[0].generation), activeModel: rows[0].active_model } : null;
  }

  /**
   * The model a search reads (the tenant's active model, else `configured`) and the bound of that model's
   * bulk-loaded index (null before a bulk load), in one round trip.
   */
  async searchModel(
    tenantId: string,
    configured: string,
  ): Promise<{ model: string; segmentBound: number | null }> {
    const rows: Array<{ model: string; bound: number | null }> = await this.dataSource.query(
      `SELECT m.model, (SELECT serving_bound FROM chunk_embedding_segments s WHERE s.model = m.model) AS bound
       FROM (SELECT COALESCE((SELECT active_model FROM document_corpus WHERE tenant_id = $1), $2) AS model) m`,
      [tenantId, configured],
    );
    const bound = rows[0]?.bound;
    return {
      model: rows[0]?.model ?? configured,
      segmentBound: bound === null || bound === undefined ? null : Number(bound),
    };
  }

  async tenantsNotOnModel(model: string): Promise<string[]> {
    const rows: Array<{ tenant_id: string }> = await this.dataSource.query(
      `SELECT tenant_id FROM document_corpus WHERE active_model IS DISTINCT FROM $1`,
      [model],
    );
    return rows.map((r) => r.tenant_id);
  }

  async bumpGeneration(em: EntityManager, tenantId: string): Promise<void> {
    await em.query(
      `INSERT INTO document_corpus (tenant_id, generation) VALUES ($1, 1)
       ON CONFLICT (tenant_id) DO UPDATE SET generation = document_corpus.generation + 1, updated_at = now()`,
      [tenantId],
    );
  }

  async setActiveModel(em: EntityManager, tenantId: string, model: string): Promise<void> {
    await em.query(
      `UPDATE document_corpus SET active_model = $2, generation = generation + 1, updated_at = now() WHERE tenant_id = $1`,
      [tenantId, model],
    );
  }
}
