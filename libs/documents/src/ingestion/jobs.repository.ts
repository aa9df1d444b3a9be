import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { JobQueue, type JobError, type JobQueueTable, type QueuedJobRow } from '@app/platform';
import type { DocumentJobKind, DocumentJobResolution } from '../entities/document-job.entity';

export interface DeadLetterRow {
  id: string;
  document_id: string | null;
  filename: string | null;
  kind: DocumentJobKind;
  revision: number | null;
  target_model: string | null;
  attempts: number;
  max_attempts: number;
  error: JobError | null;
  created_at: Date;
  finished_at: Date | null;
  resolved_at: Date | null;
  resolution: DocumentJobResolution | null;
  has_content: boolean;
}

export interface ClaimedJob {
  id: string;
  tenantId: string;
  documentId: string | null;
  kind: DocumentJobKind;
  revision: number | null;
  content: Buffer | null;
  targetModel: string | null;
  attempts: number;
  maxAttempts: number;
  /** Marked for the bulk path (`ingest --bulk`, or the tenant's queue reached the bulk threshold). */
  bulk: boolean;
}

interface ClaimedRow extends QueuedJobRow {
  document_id: string | null;
  kind: DocumentJobKind;
  revision: number | null;
  content: Buffer | null;
  target_model: string | null;
  bulk: boolean;
}

/** The document kinds' table in the one job queue (JobQueue): ingest and re-embed jobs. */
const DOCUMENT_JOBS: JobQueueTable = {
  table: 'document_jobs',
  orderBy: 'c.run_after, c.created_at',
  returning: ['document_id', 'kind', 'revision', 'content', 'target_model', 'bulk'],
  // A failed job keeps its bytes: retrying it later needs them (they go with the retry or the cleanup).
  onFinish: (status) => `content = CASE WHEN ${status} = 'failed' THEN content END`,
  finishedStatuses: ['done', 'failed', 'superseded', 'cancelled'],
  // The dead letter: failures nobody has retried, replaced or dismissed yet.
  keepWhere: `status = 'failed' AND resolved_at IS NULL`,
};

/**
 * Document jobs: the queue's claim, lease, end, retry, recovery and cleanup are the shared JobQueue's;
 * this adds the document kinds' own queries (the retry's bytes, the dead letter, re-embeds, cancels).
 */
@Injectable()
export class JobsRepository {
  readonly queue: JobQueue;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.queue = new JobQueue(dataSource, DOCUMENT_JOBS);
  }

  /** The next due job, fair across tenants (JobQueue.claim). */
  async claim(workerId: string, leaseSeconds: number, maxRunningPerTenant = 0): Promise<ClaimedJob | null> {
    const row = await this.queue.claim<ClaimedRow>(workerId, leaseSeconds, maxRunningPerTenant);
    if (!row) return null;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      documentId: row.document_id,
      kind: row.kind,
      revision: row.revision,
      content: row.content,
      targetModel: row.target_model,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      bulk: row.bulk,
    };
  }

  heartbeat(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    return this.queue.heartbeat(jobId, workerId, leaseSeconds);
  }

  /** Ends a job this worker holds; false when it no longer holds it. */
  finish(
    em: EntityManager,
    jobId: string,
    workerId: string,
    status: 'done' | 'superseded' | 'cancelled',
    error: JobError | null = null,
  ): Promise<boolean> {
    return this.queue.finish(em, jobId, workerId, { status, error });
  }

  /** Fails a job this worker holds, keeping its error (and its bytes, for a retry). */
  fail(em: EntityManager, jobId: string, workerId: string, error: JobError): Promise<boolean> {
    return this.queue.finish(em, jobId, workerId, { status: 'failed', error });
  }

  retryLater(em: EntityManager, jobId: string, workerId: string, delaySeconds: number, error: JobError) {
    return this.queue.retryLater(em, jobId, workerId, delaySeconds, error);
  }

  /** Jobs whose worker died on their last attempt, now failed (JobQueue.failExhaustedExpired). */
  async failExhaustedExpired(): Promise<
    Array<{ id: string; documentId: string | null; revision: number | null; attempts: number }>
  > {
    const rows = await this.queue.failExhaustedExpired<
      QueuedJobRow & { document_id: string | null; revision: number | null }
    >(['document_id', 'revision']);
    return rows.map((r) => ({
      id: r.id,
      documentId: r.document_id,
      revision: r.revision,
      attempts: r.attempts,
    }));
  }

  requeueExpired(): Promise<number> {
    return this.queue.requeueExpired();
  }

  /** Finished jobs past retention, except failures nobody has resolved yet (the dead letter). */
  deleteFinishedBefore(cutoff: Date): Promise<number> {
    return this.queue.deleteFinishedBefore(cutoff);
  }

  /** The bytes of the failed ingest job of this document revision, locked for the retry that takes them. */
  async failedContentFor(em: EntityManager, documentId: string, revision: number): Promise<Buffer | null> {
    const rows: Array<{ content: Buffer | null }> = await em.query(
      `SELECT content FROM document_jobs
       WHERE document_id = $1 AND revision = $2 AND kind = 'ingest' AND status = 'failed' AND content IS NOT NULL
       ORDER BY finished_at DESC NULLS LAST
       LIMIT 1
       FOR UPDATE`,
      [documentId, revision],
    );
    return rows[0]?.content ?? null;
  }

  /** Marks a document's unresolved failed jobs as looked at, dropping their bytes. */
  async resolveFailedOfDocument(
    em: EntityManager,
    documentId: string,
    resolution: DocumentJobResolution,
  ): Promise<number> {
    const [, count]: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET resolved_at = now(), resolution = $2, content = NULL, updated_at = now()
       WHERE document_id = $1 AND status = 'failed' AND resolved_at IS NULL`,
      [documentId, resolution],
    );
    return count;
  }

  /** Dismisses one dead-letter job of the tenant; false when there is no such unresolved failed job. */
  async dismiss(tenantId: string, jobId: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `UPDATE document_jobs SET resolved_at = now(), resolution = 'dismissed', content = NULL, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND status = 'failed' AND resolved_at IS NULL`,
      [tenantId, jobId],
    );
    return count === 1;
  }

  /** Failed jobs of a tenant, newest first: unresolved ones only unless `includeResolved`. */
  async deadLetter(
    tenantId: string,
    options: { includeResolved: boolean; limit: number; offset: number },
  ): Promise<{ rows: DeadLetterRow[]; total: number }> {
    const where = `j.tenant_id = $1 AND j.status = 'failed'${options.includeResolved ? '' : ' AND j.resolved_at IS NULL'}`;
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT j.id, j.document_id, d.filename, j.kind, j.revision, j.target_model, j.attempts, j.max_attempts,
              j.error, j.created_at, j.finished_at, j.resolved_at, j.resolution,
              (j.content IS NOT NULL) AS has_content
       FROM document_jobs j LEFT JOIN documents d ON d.id = j.document_id
       WHERE ${where}
       ORDER BY j.finished_at DESC NULLS LAST, j.id
       LIMIT $2 OFFSET $3`,
      [tenantId, options.limit, options.offset],
    );
    const [{ count }]: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM document_jobs j WHERE ${where}`,
      [tenantId],
    );
    return { rows, total: Number(count) };
  }

  async enqueueReembed(tenantId: string, model: string, maxAttempts: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO document_jobs (tenant_id, kind, status, target_model, max_attempts)
       VALUES ($1, 'reembed', 'queued', $2, $3)
       ON CONFLICT (tenant_id, target_model) WHERE kind = 'reembed' AND status IN ('queued', 'running') DO NOTHING
       RETURNING id`,
      [tenantId, model, maxAttempts],
    );
    return rows.length > 0;
  }

  /**
   * Cancels a document's queued or running ingestion job (the document was deleted). A running job's
   * worker loses its lease with it: its heartbeat and its next write see the job is no longer its own.
   */
  async cancelForDocument(em: EntityManager, documentId: string): Promise<number> {
    const [, count]: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET status = 'cancelled', finished_at = now(), updated_at = now(), locked_by = NULL,
              lease_expires_at = NULL, content = NULL,
              error = jsonb_build_object('code', 'DOCUMENT_DELETED', 'message', 'the document was deleted')
       WHERE document_id = $1 AND kind = 'ingest' AND status IN ('queued', 'running', 'loaded')`,
      [documentId],
    );
    return count;
  }

  nextDueInMs(): Promise<number | null> {
    return this.queue.nextDueInMs();
  }
}
