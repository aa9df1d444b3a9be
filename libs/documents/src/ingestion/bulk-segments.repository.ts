import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { toVectorBinary, type ChunkVector } from './chunks.repository';

/** Where a model's bulk loads stand: the serving index covers `segment < servingBound`. */
export interface SegmentState {
  servingBound: number;
  loadingSegment: number | null;
}

export interface LoadedJob {
  id: string;
  tenantId: string;
  documentId: string;
  revision: number;
}

export interface IndexBuildSettings {
  maintenanceWorkMem: string;
  workers: number;
}

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * `COPY ... FROM STDIN` of one prepared buffer through node-postgres's submittable interface (what
 * pg-copy-streams does, without the stream): the client sends the statement, then the buffer on
 * CopyInResponse, and resolves on ReadyForQuery.
 */
class CopyFromBuffer {
  private error: Error | null = null;
  readonly done: Promise<void>;
  private settle!: (error: Error | null) => void;

  constructor(
    private readonly text: string,
    private readonly data: Buffer,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }

  handleCommandComplete(): void {}

  handleError(error: Error): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    this.settle(this.error);
  }
}

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function field(value: Buffer): Buffer {
  const length = Buffer.allocUnsafe(4);
  length.writeInt32BE(value.length, 0);
  return Buffer.concat([length, value]);
}

/** The binary COPY stream of `chunk_embeddings (chunk_id, tenant_id, model, embedding, segment)`. */
export function embeddingsCopyData(
  tenantId: string,
  model: string,
  segment: number,
  vectors: ChunkVector[],
): Buffer {
  const header = Buffer.alloc(8);
  const tenant = field(uuidBytes(tenantId));
  const modelField = field(Buffer.from(model, 'utf8'));
  const segmentValue = Buffer.allocUnsafe(4);
  segmentValue.writeInt32BE(segment, 0);
  const segmentField = field(segmentValue);
  const parts: Buffer[] = [COPY_SIGNATURE, header];
  const fieldCount = Buffer.from([0, 5]);
  for (const v of vectors)
    parts.push(
      fieldCount,
      field(uuidBytes(v.chunkId)),
      tenant,
      modelField,
      field(toVectorBinary(v.vector)),
      segmentField,
    );
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

/** The bulk path's storage: segment bookkeeping (through the owner's functions), COPY, loaded jobs. */
@Injectable()
export class BulkSegmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async state(model: string): Promise<SegmentState | null> {
    const [row]: Array<{ serving_bound: number; loading_segment: number | null }> =
      await this.dataSource.query(
        `SELECT serving_bound, loading_segment FROM chunk_embedding_segments WHERE model = $1`,
        [model],
      );
    return row ? { servingBound: row.serving_bound, loadingSegment: row.loading_segment } : null;
  }

  /** The segment a bulk load of `model` writes into (opened if none is). */
  async open(
    unboundedIndex: string,
    model: string,
    dimensions: number,
    settings: IndexBuildSettings,
  ): Promise<number> {
    const [row]: Array<{ segment: number }> = await this.withoutStatementTimeout((em) =>
      em.query(`SELECT ops_bulk_open_segment($1, $2, $3, $4, $5) AS segment`, [
        unboundedIndex,
        model,
        dimensions,
        settings.maintenanceWorkMem,
        settings.workers,
      ]),
    );
    return row.segment;
  }

  /** Builds the index covering `segment` and retires the previous one; false when it was not loading. */
  async seal(model: string, dimensions: number, segment: number, settings: IndexBuildSettings) {
    const [row]: Array<{ sealed: boolean }> = await this.withoutStatementTimeout((em) =>
      em.query(`SELECT ops_bulk_seal_segment($1, $2, $3, $4, $5) AS sealed`, [
        model,
        dimensions,
        segment,
        settings.maintenanceWorkMem,
        settings.workers,
      ]),
    );
    return row.sealed;
  }

  /**
   * Planner statistics of the tables a bulk load wrote (as the owner: `ops_bulk_analyze`). Without
   * them a freshly loaded tenant's vector search is planned as an exact scan of its every vector.
   */
  async analyze(): Promise<void> {
    await this.withoutStatementTimeout((em) => em.query(`SELECT ops_bulk_analyze()`));
  }

  /**
   * The keyword GIN index for a bulk load (`loading`: entries through a small pending list) or for
   * the normal path (straight into the index, the list merged): `ops_bulk_keyword_index`. Idempotent;
   * false when the index's lock was not free within 2 s (nothing changed; a later call retries).
   */
  async keywordIndexLoading(loading: boolean): Promise<boolean> {
    const [row]: Array<{ done: boolean }> = await this.withoutStatementTimeout((em) =>
      em.query(`SELECT ops_bulk_keyword_index($1) AS done`, [loading]),
    );
    return row.done;
  }

  /** An index build takes as long as the corpus needs: DATABASE_STATEMENT_TIMEOUT_MS does not apply. */
  private withoutStatementTimeout<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (em) => {
      await em.query(`SET LOCAL statement_timeout = 0`);
      return work(em);
    });
  }

  /**
   * Writes vectors with binary COPY. The connection must bypass row-level security (COPY FROM is
   * refused on a table with it otherwise): callers run this on the system pool.
   */
  async copyVectors(
    em: EntityManager,
    tenantId: string,
    model: string,
    segment: number,
    vectors: ChunkVector[],
  ): Promise<void> {
    if (vectors.length === 0) return;
    const client = (await em.queryRunner!.connect()) as { query(submittable: CopyFromBuffer): unknown };
    const copy = new CopyFromBuffer(
      `COPY chunk_embeddings (chunk_id, tenant_id, model, embedding, segment) FROM STDIN (FORMAT binary)`,
      embeddingsCopyData(tenantId, model, segment, vectors),
    );
    client.query(copy);
    await copy.done;
  }

  /** Bulk jobs not yet loaded, in every tenant (system scope): the segment stays open while any is. */
  async pendingBulkJobs(): Promise<number> {
    const [row]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM document_jobs WHERE bulk AND status IN ('queued', 'running')`,
    );
    return row.count;
  }

  /** Marks a tenant's queued ingest jobs for the bulk path (its queue reached the threshold). */
  async markQueuedBulk(tenantId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE document_jobs SET bulk = true, updated_at = now()
       WHERE tenant_id = $1 AND kind = 'ingest' AND status = 'queued' AND NOT bulk`,
      [tenantId],
    );
  }

  async queueDepth(tenantId: string): Promise<number> {
    const [row]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM document_jobs
       WHERE tenant_id = $1 AND kind = 'ingest' AND status IN ('queued', 'running')`,
      [tenantId],
    );
    return row.count;
  }

  /** Records that a running job wrote every chunk in `segment`; it waits for the index to be published. */
  async markLoaded(em: EntityManager, jobId: string, workerId: string, segment: number): Promise<boolean> {
    const [, count]: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET status = 'loaded', bulk_segment = $3, locked_by = NULL, lease_expires_at = NULL,
              updated_at = now()
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [jobId, workerId, segment],
    );
    return count > 0;
  }

  /** Loaded jobs whose segment the serving index covers (system scope). */
  async loadedJobs(servingBound: number): Promise<LoadedJob[]> {
    const rows: Array<{ id: string; tenant_id: string; document_id: string; revision: number }> =
      await this.dataSource.query(
        `SELECT id, tenant_id, document_id, revision FROM document_jobs
         WHERE status = 'loaded' AND bulk_segment < $1 ORDER BY created_at`,
        [servingBound],
      );
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      documentId: r.document_id,
      revision: r.revision,
    }));
  }

  /** Ends a loaded job; false when it is no longer loaded (cancelled by a delete meanwhile). */
  async finishLoaded(em: EntityManager, jobId: string, status: 'done' | 'superseded'): Promise<boolean> {
    const [, count]: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET status = $2::varchar, finished_at = now(), updated_at = now(), content = NULL
       WHERE id = $1 AND status = 'loaded'`,
      [jobId, status],
    );
    return count > 0;
  }
}
