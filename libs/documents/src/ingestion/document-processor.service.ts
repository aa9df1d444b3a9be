import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  BACKGROUND_STATEMENT_TARGET_MS,
  BatchSizer,
  DatabaseInfo,
  EventBus,
  runAsSystem,
} from '@app/platform';
import { ChunkDraft, chunkBlocks } from '../chunking/chunker.util';
import { EmbeddingProvider, EmbeddingProviders } from '../embedding/embedding-provider';
import { DocumentProcessingError, DocumentsExceptionCode } from '../documents.exception';
import { DocumentParseThread } from '../parsing/parse-thread';
import type { ParseBudget } from '../parsing/parse-budget';
import { TermStatsRepository, VersionDelta } from '../search/term-stats.repository';
import { BulkIngestionService } from './bulk-ingestion.service';
import { BulkSegmentsRepository } from './bulk-segments.repository';
import { ChunksRepository } from './chunks.repository';
import { DocumentsRepository } from './documents.repository';
import { IngestionStageClock } from './ingestion-stage-clock.service';
import { ClaimedJob, JobsRepository } from './jobs.repository';
import { DocumentsConfig } from '../documents.config';

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

/** The job's document was deleted while the job ran: it stops, and writes nothing more. */
export class JobCancelledError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was cancelled: its document was deleted`);
    this.name = 'JobCancelledError';
  }
}

/**
 * Embedded: items per write statement at the start of a job, and the bounds each job then adapts
 * them in so that one statement takes about BACKGROUND_STATEMENT_TARGET_MS. Chunk inserts (with their
 * tsvectors and GIN entries) and vector inserts (each vector an HNSW insertion, the costliest row by
 * far: 16 of them held the connection 0.6-0.7 s on a loaded machine) are sized apart.
 */
const EMBEDDED_STATEMENT_ROWS = {
  chunks: { initial: 16, min: 2, max: 64 },
  vectors: { initial: 2, min: 1, max: 64 },
} as const;
/** Chunks per statement that reads a version's terms before the switch (embedded; adapted by BatchSizer). */
const TERM_SLICE_CHUNKS = 64;

type WriteStatementKind = keyof typeof EMBEDDED_STATEMENT_ROWS;

/** How a batch's rows reach the database (see `writeBatch`). */
interface BatchWriter {
  /** The most rows of `kind` one statement writes (Infinity: all of the batch's in one). */
  rows(kind: WriteStatementKind): number;
  /** Runs one statement writing `rows` rows of `kind`. */
  statement<T>(kind: WriteStatementKind, rows: number, work: (em: EntityManager) => Promise<T>): Promise<T>;
  /**
   * Set when the statements are not one transaction (embedded): each chunk insert then also checks
   * that the document is live, and records the job's progress.
   */
  live?: { jobId: string; revision: number; progress: number };
}

/** Every row in one statement per kind, inside the transaction `em` belongs to. */
const inTransaction = (em: EntityManager): BatchWriter => ({
  rows: () => Number.POSITIVE_INFINITY,
  statement: (_kind, _rows, work) => work(em),
});

/** What every batch of one ingestion job needs to know. */
interface IngestPlan {
  tenantId: string;
  documentId: string;
  target: number;
  models: EmbeddingProvider[];
  /** Chunks an earlier attempt committed at the target version, with the models they have vectors for. */
  kept: Map<number, { id: string; models: string[] }>;
  /** Per model, the source hashes that already have a vector in the tenant. */
  reusable: Map<string, Set<string>>;
  /** The bulk segment new vectors go to by COPY (bulk path), or null (normal path). */
  segment: number | null;
}

interface EmbeddedBatch {
  drafts: ChunkDraft[];
  /** Per model, fresh vectors by chunk text. */
  vectors: Map<string, Map<string, number[]>>;
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
    private readonly config: DocumentsConfig,
    private readonly documents: DocumentsRepository,
    private readonly chunks: ChunksRepository,
    private readonly jobs: JobsRepository,
    private readonly providers: EmbeddingProviders,
    private readonly events: EventBus,
    private readonly termStats: TermStatsRepository,
    private readonly clock: IngestionStageClock,
    private readonly database: DatabaseInfo,
    private readonly bulk: BulkIngestionService,
    private readonly bulkSegments: BulkSegmentsRepository,
    private readonly parseThread: DocumentParseThread,
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
    const content = job.content;
    // Large office and PDF files parse on a thread of their own: the event loop keeps serving requests.
    const blocks = await this.clock.time('parse', () =>
      this.parseThread.parse(content, document.format, this.parseBudget()),
    );
    const chunkStarted = performance.now();
    const drafts = chunkBlocks(blocks, {
      targetChars: this.config.DOCUMENTS_CHUNK_TARGET_CHARS,
      overlapChars: this.config.DOCUMENTS_CHUNK_OVERLAP_CHARS,
      maxChunks: this.config.DOCUMENTS_MAX_CHUNKS,
    });
    this.clock.add('chunk', performance.now() - chunkStarted);
    // Parsing can take a while: a document deleted meanwhile is not embedded.
    if (!(await this.documents.isLive(document.id))) throw new JobCancelledError(job.id);
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

    const needs = (draft: ChunkDraft, model: string) => !kept.get(draft.chunkIndex)?.models.includes(model);
    const needEmbedding = drafts.filter((d) => models.some((m) => needs(d, m.model)));
    // Texts that already have a vector in the tenant (typically the previous version's unchanged
    // chunks) are copied in SQL when written; only the others go to the embedder.
    const reusable = new Map<string, Set<string>>();
    for (const provider of models) {
      const hashes = needEmbedding.filter((d) => needs(d, provider.model)).map((d) => d.sourceHash);
      reusable.set(provider.model, await this.chunks.hashesWithVector(job.tenantId, hashes, provider.model));
    }
    const plan: IngestPlan = {
      tenantId: job.tenantId,
      documentId: document.id,
      target,
      models,
      kept,
      reusable,
      segment: await this.bulk.segmentFor(job, models),
    };

    const batchSize = this.config.EMBEDDINGS_BATCH_SIZE;
    const batches: ChunkDraft[][] = [];
    for (let start = 0; start < needEmbedding.length; start += batchSize)
      batches.push(needEmbedding.slice(start, start + batchSize));
    let completed = drafts.length - needEmbedding.length;
    // Pipelined: the next batch is embedded while the current one is written. The last batch is
    // written inside the version-switch transaction (on the native server).
    let next = batches.length > 0 ? this.embedBatch(plan, batches[0]) : undefined;
    const embedded = this.database.backend === 'embedded' && plan.segment === null;
    const sizers = {
      chunks: this.statementSizer('chunks'),
      vectors: this.statementSizer('vectors'),
    };
    const write = async (batch: EmbeddedBatch) => {
      completed += batch.drafts.length;
      const progress = Math.min(99, Math.floor((completed / drafts.length) * 100));
      if (embedded) {
        // On the embedded database a transaction holds the one connection from BEGIN to COMMIT,
        // every other tenant's statements waiting behind it, however long this process takes between
        // its statements. So a batch is written as single statements, each its own transaction and
        // each sized to a few tens of ms: a request queued meanwhile gets the connection before the
        // job's next statement (EmbeddedScheduler), not after a whole slice of the batch.
        await this.writeBatch(
          this.statementWriter(sizers, { jobId: job.id, revision: document.revision, progress }),
          plan,
          batch,
        );
        return;
      }
      const writeBatch = () =>
        this.transaction(async (em) => {
          // Bulk path: the commit does not wait for its WAL flush. A database crash can lose the last
          // few batches' commits (never part of one), which the job's next attempt writes again, as
          // after any crash; the document is not searchable before the publish anyway.
          if (plan.segment !== null) await em.query(`SET LOCAL synchronous_commit = off`);
          if (!(await this.documents.lockLive(em, document.id))) throw new JobCancelledError(job.id);
          await this.writeBatch(inTransaction(em), plan, batch);
          await this.documents.setProgress(em, document.id, document.revision, progress);
        });
      // COPY FROM is refused on a table with row-level security: the bulk path writes on the
      // system pool, every row with the job's tenant.
      await (plan.segment === null
        ? writeBatch()
        : runAsSystem('bulk ingestion: COPY vectors', writeBatch, { quiet: true }));
    };
    for (let i = 0; i < batches.length - 1; i++) {
      lease.assertHeld();
      const prepared = await next!;
      next = this.embedBatch(plan, batches[i + 1]);
      // Awaited on the next turn; a write failing first must not leave it unhandled.
      next.catch(() => undefined);
      await write(prepared);
    }
    let last = await next;
    lease.assertHeld();
    if (plan.segment !== null) {
      if (last) await write(last);
      lease.assertHeld();
      return this.finishLoaded(job, lease, plan.segment);
    }
    // Embedded: the version switch is one transaction that holds every other tenant's statements, so
    // it carries no chunk writes and reads no chunks: the last batch is written before it, the BM25
    // statistics' change is read before it in bounded statements, and the previous version's chunks
    // are deleted after it (they are invisible once the document points at the new version).
    let delta: VersionDelta | undefined;
    if (this.database.backend === 'embedded') {
      if (last) await write(last);
      last = undefined;
      lease.assertHeld();
      delta = await this.clock.time('term stats', () =>
        this.termStats.versionDelta(
          this.dataSource,
          job.tenantId,
          document.id,
          document.activeVersion,
          target,
          new BatchSizer(TERM_SLICE_CHUNKS, {
            targetMs: BACKGROUND_STATEMENT_TARGET_MS,
            min: TERM_SLICE_CHUNKS / 2,
            max: TERM_SLICE_CHUNKS * 8,
          }),
        ),
      );
      lease.assertHeld();
    }

    const switched = await this.transaction(async (em) => {
      const switchStarted = performance.now();
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
      this.clock.add('version switch', performance.now() - switchStarted);
      if (last) await this.writeBatch(inTransaction(em), plan, last);
      await this.clock.time('term stats', () =>
        // The delta read before holds while the active version is the one it was read against.
        delta && delta.from === current.active_version
          ? this.termStats.applyVersionDelta(em, job.tenantId, delta)
          : this.termStats.switchVersion(em, job.tenantId, document.id, current.active_version, target),
      );
      await this.clock.time('version switch', async () => {
        await em.query(
          `UPDATE documents SET active_version = $2, status = 'done', processing_progress = 100, total_chunks = $3,
                  error_details = NULL, updated_at = now()
           WHERE id = $1`,
          [document.id, target, drafts.length],
        );
        if (!delta) await this.chunks.deleteOtherVersions(em, document.id, target);
        await this.documents.bumpGeneration(em, job.tenantId);
      });
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
      // Embedded: the previous version's chunks (and their vectors), a bounded batch per statement.
      // No reader sees them any more; rows left by a failure here go with the document's next switch.
      if (delta && document.activeVersion > 0)
        await this.clock
          .time('version switch', () => this.chunks.deleteVersionsBelow(document.id, target))
          .catch((error: Error) =>
            this.logger.warn({
              msg: 'previous version not deleted yet; the next switch deletes it',
              documentId: document.id,
              error: error.message,
            }),
          );
    }
  }

  /**
   * Bulk path: every chunk is written, but its vectors are outside the serving index; the document
   * stays `processing` until the segment is indexed (the last bulk job to finish, or the recovery
   * pass, does it), then switches version like the normal path.
   */
  private async finishLoaded(job: ClaimedJob, lease: JobLease, segment: number): Promise<void> {
    const loaded = await this.dataSource.transaction(async (em) => {
      const [current]: Array<{ revision: number; deleted_at: Date | null }> = await em.query(
        `SELECT revision, deleted_at FROM documents WHERE id = $1 FOR UPDATE`,
        [job.documentId],
      );
      if (!current || current.deleted_at || current.revision !== job.revision) {
        await this.jobs.finish(em, job.id, lease.workerId, 'superseded');
        return false;
      }
      if (!(await this.bulkSegments.markLoaded(em, job.id, lease.workerId, segment)))
        throw new LeaseLostError(job.id);
      return true;
    });
    if (!loaded) return;
    // The job is loaded whatever happens here: a failed build is redone by the next call.
    await this.bulk.completeLoads().catch((error: Error) =>
      this.logger.warn({
        msg: 'bulk segment not indexed yet; the recovery pass retries',
        error: error.message,
      }),
    );
  }

  /** Embedded: sizes one job's write statements of `kind` (see EMBEDDED_STATEMENT_ROWS). */
  private statementSizer(kind: WriteStatementKind): BatchSizer {
    const { initial, min, max } = EMBEDDED_STATEMENT_ROWS[kind];
    return new BatchSizer(initial, { targetMs: BACKGROUND_STATEMENT_TARGET_MS, min, max });
  }

  /**
   * Embedded: a batch written as single statements, each its own transaction on a connection of its
   * own (so each its own lease of the scheduler), sized by `sizers` on the time the statement held the
   * connection (not the time it waited for it). Each chunk insert checks in the same statement that
   * the document is live, since a request (a delete) may run between two of the job's statements; the
   * vector inserts skip chunks a delete removed. A crash between two statements leaves chunks without
   * vectors at the version not yet switched to, which the job's next attempt keeps and completes.
   */
  private statementWriter(
    sizers: Record<WriteStatementKind, BatchSizer>,
    live: NonNullable<BatchWriter['live']>,
  ): BatchWriter {
    return {
      live,
      rows: (kind) => sizers[kind].next,
      statement: async (kind, rows, work) => {
        const runner = this.dataSource.createQueryRunner('master');
        try {
          // The connection, and with it the scheduler's lease, is held from here.
          await runner.connect();
          const started = performance.now();
          const result = await work(runner.manager);
          sizers[kind].record(rows, performance.now() - started);
          return result;
        } finally {
          await runner.release();
        }
      },
    };
  }

  private parseBudget(): ParseBudget {
    return {
      maxZipEntries: this.config.DOCUMENTS_PARSE_MAX_ZIP_ENTRIES,
      maxEntryBytes: this.config.DOCUMENTS_PARSE_MAX_ENTRY_BYTES,
      maxExpandedBytes: this.config.DOCUMENTS_PARSE_MAX_EXPANDED_BYTES,
      maxRatio: this.config.DOCUMENTS_PARSE_MAX_RATIO,
      maxPdfPages: this.config.DOCUMENTS_PARSE_MAX_PDF_PAGES,
      maxTextChars: this.config.DOCUMENTS_PARSE_MAX_TEXT_CHARS,
    };
  }

  /** A transaction whose COMMIT (the time after `work` returns) is counted as its own stage. */
  private async transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    let workDone = 0;
    const result = await this.dataSource.transaction(async (em) => {
      const value = await work(em);
      workDone = performance.now();
      return value;
    });
    this.clock.add('commit', performance.now() - workDone);
    return result;
  }

  /** Vectors for the texts of a batch that need a model and have no reusable vector, by text. */
  private async embedBatch(plan: IngestPlan, drafts: ChunkDraft[]): Promise<EmbeddedBatch> {
    // Let the caller's pending write reach the database before an in-process embedder takes the CPU.
    await new Promise((resolve) => setImmediate(resolve));
    const vectors = new Map<string, Map<string, number[]>>();
    for (const provider of plan.models) {
      const reusable = plan.reusable.get(provider.model)!;
      const texts = [
        ...new Set(
          drafts
            .filter((d) => !plan.kept.get(d.chunkIndex)?.models.includes(provider.model))
            .filter((d) => !reusable.has(d.sourceHash))
            .map((d) => d.text),
        ),
      ];
      const embedded = texts.length > 0 ? await this.clock.time('embed', () => provider.embed(texts)) : [];
      vectors.set(provider.model, new Map(texts.map((text, i) => [text, embedded[i]])));
    }
    return { drafts, vectors };
  }

  /**
   * Inserts a batch's new chunks and their vectors (per model), in statements of at most
   * `writer.rows(kind)` rows each: one statement per kind in a transaction, several on embedded.
   */
  private async writeBatch(writer: BatchWriter, plan: IngestPlan, batch: EmbeddedBatch): Promise<void> {
    const fresh = batch.drafts.filter((d) => !plan.kept.has(d.chunkIndex));
    const idByIndex = new Map<number, string>();
    const { live } = writer;
    // At least one statement: with `live` it is the check that the document is still live.
    for (let start = 0; start === 0 || start < fresh.length;) {
      const part = fresh.slice(start, start + writer.rows('chunks'));
      start += Math.max(1, part.length);
      const ids = await this.clock.time('insert chunks', () =>
        writer.statement('chunks', part.length, (em) =>
          live
            ? this.chunks.insertChunksIfLive(em, plan.tenantId, plan.documentId, plan.target, part, live)
            : this.chunks.insertChunks(em, plan.tenantId, plan.documentId, plan.target, part),
        ),
      );
      if (!ids) throw new JobCancelledError(live!.jobId);
      part.forEach((d, i) => idByIndex.set(d.chunkIndex, ids[i]));
    }
    const chunkId = (d: ChunkDraft) => plan.kept.get(d.chunkIndex)?.id ?? idByIndex.get(d.chunkIndex)!;
    /** Runs `work` over `items` in statements of at most `writer.rows('vectors')` items. */
    const inStatements = async <T, R>(items: T[], work: (em: EntityManager, part: T[]) => Promise<R[]>) => {
      const results: R[] = [];
      for (let start = 0; start < items.length;) {
        const part = items.slice(start, start + writer.rows('vectors'));
        start += part.length;
        results.push(...(await writer.statement('vectors', part.length, (em) => work(em, part))));
      }
      return results;
    };
    for (const provider of plan.models) {
      const needing = batch.drafts.filter(
        (d) => !plan.kept.get(d.chunkIndex)?.models.includes(provider.model),
      );
      const embedded = batch.vectors.get(provider.model)!;
      const textById = new Map(needing.map((d) => [chunkId(d), d.text]));
      await this.clock.time('insert vectors', async () => {
        const copies = needing
          .filter((d) => !embedded.has(d.text))
          .map((d) => ({ chunkId: chunkId(d), sourceHash: d.sourceHash }));
        const lost = await inStatements(copies, (em, part) =>
          this.chunks.copyVectorsByHash(em, plan.tenantId, provider.model, part),
        );
        const vectors = needing
          .filter((d) => embedded.has(d.text))
          .map((d) => ({ chunkId: chunkId(d), vector: embedded.get(d.text)! }));
        if (lost.length > 0) {
          // The chunks they were to be copied from were deleted since the lookup: embed them after all.
          const texts = lost.map((c) => textById.get(c.chunkId)!);
          const fallback = await this.clock.time('embed', () => provider.embed(texts));
          lost.forEach((c, i) => vectors.push({ chunkId: c.chunkId, vector: fallback[i] }));
        }
        await inStatements(vectors, async (em, part) => {
          if (plan.segment === null) await this.chunks.insertVectors(em, plan.tenantId, provider.model, part);
          else await this.bulkSegments.copyVectors(em, plan.tenantId, provider.model, plan.segment, part);
          return [];
        });
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
          code: 'MODEL_NOT_CONFIGURED',
          message: `model ${model} is no longer configured`,
        }),
      );
      return;
    }
    await this.chunks.ensureModelIndex(model, await provider.dimensions());
    const batchSize = this.config.EMBEDDINGS_BATCH_SIZE;
    for (;;) {
      lease.assertHeld();
      const missing = await this.chunks.missingModel(job.tenantId, model, batchSize);
      if (missing.length === 0) break;
      const vectors = await provider.embed(missing.map((c) => c.text));
      lease.assertHeld();
      await this.dataSource.transaction((em) =>
        this.chunks.insertVectors(
          em,
          job.tenantId,
          model,
          missing.map((c, i) => ({ chunkId: c.id, vector: vectors[i] })),
        ),
      );
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
