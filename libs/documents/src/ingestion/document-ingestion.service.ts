import { Injectable } from '@nestjs/common';
import { ErrorKind, EventBus, runAsTenant } from '@app/platform';
import { sha256 } from '../chunking/chunker.util';
import { EmbeddingProviders } from '../embedding/embedding-provider';
import { DocumentEntity } from '../entities/document.entity';
import { DocumentsException, DocumentsExceptionCode } from '../documents.exception';
import type {
  DeadLetterPage,
  DocumentChunkView,
  DocumentRetryOutcome,
  DocumentInput,
  DocumentListQuery,
  DocumentMetadata,
  DocumentPage,
  DocumentView,
} from '../documents.types';
import { CANONICAL_CONTENT_TYPE, detectFormat } from '../parsing/document-format.util';
import { BulkIngestionService } from './bulk-ingestion.service';
import { BulkSegmentsRepository } from './bulk-segments.repository';
import { ChunksRepository } from './chunks.repository';
import { DocumentWorker } from './document-worker.service';
import { IngestionStageClock, type IngestionStageTimings } from './ingestion-stage-clock.service';
import { ContentReplacement, DocumentsRepository, IngestQueueLimits } from './documents.repository';
import { DeadLetterRow, JobsRepository } from './jobs.repository';
import { DocumentsConfig } from '../documents.config';

const BULK_RETRY_BATCH = 500;

function toDeadLetterView(row: DeadLetterRow): DeadLetterPage['items'][number] {
  const exhausted = row.attempts >= row.max_attempts;
  return {
    job_id: row.id,
    kind: row.kind,
    document_id: row.document_id,
    filename: row.filename,
    revision: row.revision,
    target_model: row.target_model,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    exhausted_retries: exhausted,
    error_details: row.error,
    retryable_by_api: row.kind === 'ingest' && row.has_content && row.resolved_at === null,
    created_at: new Date(row.created_at).toISOString(),
    finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    resolved_at: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
    resolution: row.resolution,
  };
}

export function toDocumentView(entity: DocumentEntity): DocumentView {
  return {
    id: entity.id,
    tenant_id: entity.tenantId,
    user_id: entity.userId,
    filename: entity.filename,
    content_type: entity.contentType,
    format: entity.format,
    size: entity.size,
    status: entity.status,
    processing_progress: entity.processingProgress,
    total_chunks: entity.totalChunks,
    chunk_version: entity.activeVersion,
    source_hash: entity.sourceHash,
    doc_metadata: entity.docMetadata,
    error_details: entity.errorDetails,
    retry_count: entity.retryCount,
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
    deleted_at: entity.deletedAt ? entity.deletedAt.toISOString() : null,
  };
}

export interface IngestResult {
  document: DocumentView;
  /** False when the content was identical to what is stored, so nothing was queued. */
  queued: boolean;
}

/**
 * Creates, replaces, deletes and restores a tenant's documents. Writes are durable the moment they
 * return (row + job committed together); parsing and embedding happen in the worker.
 */
@Injectable()
export class DocumentIngestionService {
  constructor(
    private readonly config: DocumentsConfig,
    private readonly documents: DocumentsRepository,
    private readonly chunks: ChunksRepository,
    private readonly providers: EmbeddingProviders,
    private readonly worker: DocumentWorker,
    private readonly events: EventBus,
    private readonly clock: IngestionStageClock,
    private readonly jobs: JobsRepository,
    private readonly bulk: BulkIngestionService,
    private readonly bulkSegments: BulkSegmentsRepository,
  ) {}

  private prepare(input: DocumentInput, previousMetadata?: DocumentMetadata): ContentReplacement {
    const filename = input.filename?.trim();
    if (!filename || filename.length > 500) {
      throw new DocumentsException(
        DocumentsExceptionCode.INVALID_DOCUMENT_INPUT,
        ErrorKind.INVALID_INPUT,
        'filename is required (at most 500 characters).',
      );
    }
    const format = detectFormat(filename, input.contentType);
    const content = typeof input.content === 'string' ? Buffer.from(input.content, 'utf8') : input.content;
    const limit = this.config.DOCUMENTS_MAX_UPLOAD_BYTES;
    if (content.length > limit) {
      throw new DocumentsException(
        DocumentsExceptionCode.DOCUMENT_TOO_LARGE,
        ErrorKind.PAYLOAD_TOO_LARGE,
        `The document is ${content.length} bytes; the limit is ${limit} bytes (DOCUMENTS_MAX_UPLOAD_BYTES).`,
        { size: content.length, limit },
      );
    }
    if (content.length === 0) {
      throw new DocumentsException(
        DocumentsExceptionCode.INVALID_DOCUMENT_INPUT,
        ErrorKind.INVALID_INPUT,
        'The document is empty.',
      );
    }
    const declared = (input.contentType ?? '').split(';')[0].trim().toLowerCase();
    return {
      filename,
      format,
      contentType:
        declared && declared !== 'application/octet-stream' ? declared : CANONICAL_CONTENT_TYPE[format],
      size: content.length,
      metadata: input.metadata ?? previousMetadata ?? {},
      sourceHash: sha256(content),
      content,
      maxAttempts: this.config.DOCUMENTS_JOB_MAX_ATTEMPTS,
      // A code file's chunks are queued by the diff worker, whose own queue caps them (CODE_MAX_QUEUED_*).
      queueLimits: input.metadata?.source === 'code' ? null : this.queueLimits(),
    };
  }

  private queueLimits(): IngestQueueLimits {
    return {
      maxJobs: this.config.DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT,
      maxBytes: this.config.DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT,
    };
  }

  /**
   * A new document. Posting what the tenant already has (a live document with the same filename and the same
   * content hash that has not failed) returns that document with `deduplicated: true` and queues nothing, so a
   * retried upload does not create a twin; new content under an existing filename is a new document (use PUT
   * /api/documents/:id, or the CLI's folder ingestion, to replace one).
   */
  async create(tenantId: string, input: DocumentInput): Promise<DocumentView> {
    const prepared = this.prepare(input);
    const twin = await this.documents.findLatestByFilename(tenantId, prepared.filename);
    if (twin && twin.sourceHash === prepared.sourceHash && twin.status !== 'failed') {
      return { ...toDocumentView(twin), deduplicated: true };
    }
    const entity = await this.documents.createWithJob({
      ...prepared,
      tenantId,
      userId: input.userId ?? 'system',
      initialModel: this.providers.configured.model,
    });
    this.worker.wake();
    return toDocumentView(entity);
  }

  /**
   * New content for a document. Identical content (same source_hash) on a document that is done
   * queues nothing; changed content re-embeds only the chunks whose text changed.
   */
  async update(tenantId: string, id: string, input: DocumentInput): Promise<IngestResult> {
    const existing = await this.documents.findOne(tenantId, id);
    if (!existing || existing.deletedAt) throw DocumentsException.notFound(id);
    const prepared = this.prepare(input, existing.docMetadata);
    if (
      prepared.sourceHash === existing.sourceHash &&
      existing.status === 'done' &&
      prepared.filename === existing.filename
    ) {
      if (input.metadata && JSON.stringify(input.metadata) !== JSON.stringify(existing.docMetadata)) {
        await this.documents.updateMetadata(tenantId, id, input.metadata);
        this.events.emit('documents.changed', { tenantId, documentIds: [id], reason: 'updated' });
      }
      return { document: toDocumentView((await this.documents.findOne(tenantId, id))!), queued: false };
    }
    const updated = await this.documents.replaceContentWithJob(tenantId, id, prepared);
    if (!updated) throw DocumentsException.notFound(id);
    this.worker.wake();
    return { document: toDocumentView(updated), queued: true };
  }

  /** Create, or replace the live document with the same filename (idempotent folder ingestion, seeds). */
  async upsertByFilename(tenantId: string, input: DocumentInput): Promise<IngestResult> {
    const existing = await this.documents.findLatestByFilename(tenantId, input.filename.trim());
    if (existing) return this.update(tenantId, existing.id, input);
    return { document: await this.create(tenantId, input), queued: true };
  }

  async get(tenantId: string, id: string): Promise<DocumentView> {
    const entity = await this.documents.findOne(tenantId, id);
    if (!entity) throw DocumentsException.notFound(id);
    return toDocumentView(entity);
  }

  async list(tenantId: string, query: DocumentListQuery = {}): Promise<DocumentPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const offset = Math.max(query.offset ?? 0, 0);
    const { items, total } = await this.documents.list(tenantId, { ...query, limit, offset });
    return { items: items.map(toDocumentView), total, limit, offset };
  }

  async chunksOf(
    tenantId: string,
    id: string,
    limit = 100,
    offset = 0,
  ): Promise<{ items: DocumentChunkView[]; total: number }> {
    await this.get(tenantId, id);
    const { rows, total } = await this.chunks.listActive(
      tenantId,
      id,
      Math.min(Math.max(limit, 1), 1000),
      Math.max(offset, 0),
    );
    return {
      total,
      items: rows.map((r) => ({
        chunk_id: r.id,
        document_id: r.document_id,
        chunk_index: r.chunk_index,
        chunk_version: r.chunk_version,
        chunk_type: r.chunk_type,
        text: r.text,
        page_number: r.page_number,
        slide_number: r.slide_number,
        position_in_doc: r.position_in_doc,
        table_data: r.table_data,
        source_hash: r.source_hash,
        embedding_models: r.embedding_models ?? [],
      })),
    };
  }

  async remove(tenantId: string, id: string): Promise<DocumentView> {
    const entity = await this.documents.setDeleted(tenantId, id, true);
    if (!entity) throw DocumentsException.notFound(id);
    this.events.emit('documents.changed', { tenantId, documentIds: [id], reason: 'deleted' });
    return toDocumentView(entity);
  }

  /**
   * Deleting dropped the document's vectors, so a restored document with chunks gets them back
   * through the tenant's re-embed backfill (keyword search finds it at once, vector search when
   * the backfill is done).
   */
  async restore(tenantId: string, id: string): Promise<DocumentView> {
    const wasDeleted = Boolean((await this.documents.findOne(tenantId, id))?.deletedAt);
    const entity = await this.documents.setDeleted(tenantId, id, false);
    if (!entity) throw DocumentsException.notFound(id);
    if (wasDeleted && entity.activeVersion > 0) {
      await this.jobs.enqueueReembed(
        tenantId,
        this.providers.configured.model,
        this.config.DOCUMENTS_JOB_MAX_ATTEMPTS,
      );
      this.worker.wake();
    }
    this.events.emit('documents.changed', { tenantId, documentIds: [id], reason: 'restored' });
    return toDocumentView(entity);
  }

  /** Queues a failed document again with the bytes its failed job kept (retry_count + 1). */
  async retry(tenantId: string, id: string): Promise<DocumentView> {
    const result = await this.documents.retryFailedWithJob(
      tenantId,
      id,
      this.config.DOCUMENTS_JOB_MAX_ATTEMPTS,
      this.queueLimits(),
    );
    if ('refused' in result) throw this.retryRefusal(id, result.refused, result.document);
    this.worker.wake();
    return toDocumentView(result.document);
  }

  /**
   * Retries every live failed document of the tenant whose bytes were kept, up to a batch per call
   * (`remaining` counts those left for the next call); failures without kept bytes are listed as skipped.
   */
  async retryAllFailed(tenantId: string): Promise<DocumentRetryOutcome> {
    const ids = await this.documents.failedIds(tenantId, true, BULK_RETRY_BATCH + 1);
    const outcome: DocumentRetryOutcome = { retried: [], skipped: [], remaining: 0 };
    for (const id of ids.slice(0, BULK_RETRY_BATCH)) {
      try {
        await this.retry(tenantId, id);
        outcome.retried.push(id);
      } catch (error) {
        if (!(error instanceof DocumentsException)) throw error;
        outcome.skipped.push({ document_id: id, code: error.code, message: error.message });
      }
    }
    if (ids.length > BULK_RETRY_BATCH) {
      outcome.remaining = (await this.documents.failedIds(tenantId, true, 100_000)).length;
    }
    for (const id of await this.documents.failedIds(tenantId, false, BULK_RETRY_BATCH)) {
      const error = this.retryRefusal(id, 'content_unavailable');
      outcome.skipped.push({ document_id: id, code: error.code, message: error.message });
    }
    return outcome;
  }

  private retryRefusal(
    id: string,
    reason: 'not_found' | 'not_failed' | 'content_unavailable',
    document?: DocumentEntity,
  ): DocumentsException {
    if (reason === 'not_found') return DocumentsException.notFound(id);
    if (reason === 'not_failed') {
      return new DocumentsException(
        DocumentsExceptionCode.DOCUMENT_NOT_FAILED,
        ErrorKind.CONFLICT,
        `Document ${id} is ${document?.status ?? 'not failed'}; only a failed document can be retried.`,
        { document_id: id, status: document?.status },
      );
    }
    return new DocumentsException(
      DocumentsExceptionCode.DOCUMENT_CONTENT_UNAVAILABLE,
      ErrorKind.CONFLICT,
      `The content of document ${id} was not kept with its failure; upload it again (PUT /api/documents/${id}).`,
      { document_id: id },
    );
  }

  /** Failed jobs nobody has retried, replaced or dismissed yet (the dead letter), newest first. */
  async deadLetter(
    tenantId: string,
    query: { includeResolved?: boolean; limit?: number; offset?: number } = {},
  ): Promise<DeadLetterPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const offset = Math.max(query.offset ?? 0, 0);
    const { rows, total } = await this.jobs.deadLetter(tenantId, {
      includeResolved: query.includeResolved ?? false,
      limit,
      offset,
    });
    return { items: rows.map(toDeadLetterView), total, limit, offset };
  }

  /** Marks a dead-letter job as looked at: it leaves the view and the retention cleanup may remove it. */
  async dismissDeadLetter(
    tenantId: string,
    jobId: string,
  ): Promise<{ job_id: string; resolution: 'dismissed' }> {
    if (!(await this.jobs.dismiss(tenantId, jobId))) {
      throw new DocumentsException(
        DocumentsExceptionCode.DOCUMENT_JOB_NOT_FOUND,
        ErrorKind.NOT_FOUND,
        `No unresolved failed job ${jobId} in this tenant.`,
        { job_id: jobId },
      );
    }
    return { job_id: jobId, resolution: 'dismissed' };
  }

  /**
   * Processes queued jobs in this process until the queue has nothing due. For one-shot contexts
   * (CLI, seeds, tests) where the background worker does not run.
   */
  processQueue(options: { maxJobs?: number; concurrency?: number } = {}): Promise<number> {
    return this.worker.drain(options);
  }

  /**
   * Sends the tenant's queued ingestion jobs down the bulk path (native server; `ingest --bulk`):
   * their documents become `done` together, once one index build covers them.
   */
  markQueuedBulk(tenantId: string): Promise<void> {
    return runAsTenant(tenantId, () => this.bulkSegments.markQueuedBulk(tenantId));
  }

  /** Indexes a finished bulk load and publishes its documents (idempotent; the worker also does it). */
  completeBulkLoads(): Promise<number> {
    return this.bulk.completeLoads();
  }

  /** Time spent per ingestion stage by this process since boot (for profiling). */
  stageTimings(): IngestionStageTimings {
    return this.clock.snapshot();
  }
}
