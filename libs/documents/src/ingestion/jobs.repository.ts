import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
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
  error_details: Record<string, unknown> | null;
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

interface ClaimedRow {
  id: string;
  tenant_id: string;
  document_id: string | null;
  kind: DocumentJobKind;
  revision: number | null;
  content: Buffer | null;
  target_model: string | null;
  attempts: number;
  max_attempts: number;
  bulk: boolean;
}

/** The durable ingestion queue: claims under a lease with SKIP LOCKED, heartbeats, retries, cleanup. */
@Injectable()
export class JobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims the next due job, or one whose lease expired (its worker died), and counts the attempt.
   * SKIP LOCKED lets any number of workers and processes poll the same table without blocking.
   * Fair across tenants: the job goes to the tenant with the fewest running jobs, then the one
   * claimed from longest ago (round-robin), then the oldest job of that tenant; a tenant holding
   * `maxRunningPerTenant` running jobs (0: no cap) gets none until one ends, so its burst cannot
   * hold every worker slot.
   */
  async claim(workerId: string, leaseSeconds: number, maxRunningPerTenant = 0): Promise<ClaimedJob | null> {
    const [rows]: [ClaimedRow[], number] = await this.dataSource.query(
      `-- MATERIALIZED: computed once per tenant; inlined, its subqueries ran once per eligible job
       -- (seconds per claim with thousands queued, so a bulk upload was quadratic).
       WITH turns AS MATERIALIZED (
         SELECT t.tenant_id,
                (SELECT count(*) FROM document_jobs r
                 WHERE r.tenant_id = t.tenant_id AND r.status = 'running' AND r.lease_expires_at >= now()) AS running,
                (SELECT max(s.claimed_at) FROM document_jobs s WHERE s.tenant_id = t.tenant_id) AS served
         FROM (SELECT DISTINCT tenant_id FROM document_jobs
               WHERE (status = 'queued' AND run_after <= now()) OR (status = 'running' AND lease_expires_at < now())) t)
       UPDATE document_jobs j
       SET status = 'running', attempts = j.attempts + 1, locked_by = $1,
           lease_expires_at = now() + make_interval(secs => $2), heartbeat_at = now(), claimed_at = now(),
           updated_at = now()
       WHERE j.id = (
         SELECT c.id FROM document_jobs c JOIN turns ON turns.tenant_id = c.tenant_id
         WHERE ((c.status = 'queued' AND c.run_after <= now()) OR (c.status = 'running' AND c.lease_expires_at < now()))
           AND ($3::int = 0 OR turns.running < $3::int)
         ORDER BY turns.running, turns.served NULLS FIRST, c.run_after, c.created_at
         FOR UPDATE OF c SKIP LOCKED
         LIMIT 1)
       RETURNING j.id, j.tenant_id, j.document_id, j.kind, j.revision, j.content, j.target_model, j.attempts, j.max_attempts, j.bulk`,
      [workerId, leaseSeconds, maxRunningPerTenant],
    );
    const row = rows[0];
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

  /** Extends the lease; false when the job is no longer this worker's (expired and reclaimed). */
  async heartbeat(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE document_jobs SET lease_expires_at = now() + make_interval(secs => $3), heartbeat_at = now()
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [jobId, workerId, leaseSeconds],
    );
    return result[1] === 1;
  }

  /** Ends a job this worker holds; false when it no longer holds it. */
  async finish(
    em: EntityManager,
    jobId: string,
    workerId: string,
    status: 'done' | 'failed' | 'superseded' | 'cancelled',
    errorDetails: Record<string, unknown> | null = null,
  ): Promise<boolean> {
    // A failed job keeps its bytes: retrying it later needs them (they go with the retry or the cleanup).
    const result: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET status = $3::varchar, error_details = $4::jsonb, finished_at = now(), updated_at = now(),
              locked_by = NULL, lease_expires_at = NULL, content = CASE WHEN $3::varchar = 'failed' THEN content END
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [jobId, workerId, status, errorDetails ? JSON.stringify(errorDetails) : null],
    );
    return result[1] === 1;
  }

  async retryLater(
    em: EntityManager,
    jobId: string,
    workerId: string,
    delaySeconds: number,
    errorDetails: Record<string, unknown>,
  ) {
    const result: [unknown[], number] = await em.query(
      `UPDATE document_jobs SET status = 'queued', run_after = now() + make_interval(secs => $3), error_details = $4::jsonb,
              locked_by = NULL, lease_expires_at = NULL, updated_at = now()
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [jobId, workerId, delaySeconds, JSON.stringify(errorDetails)],
    );
    return result[1] === 1;
  }

  /**
   * Jobs whose lease expired after their last allowed attempt: their worker died on them every time
   * (a poison document that crashes the process). Marks them failed and returns them.
   */
  async failExhaustedExpired(): Promise<
    Array<{ id: string; documentId: string | null; revision: number | null; attempts: number }>
  > {
    const [rows]: [
      Array<{ id: string; document_id: string | null; revision: number | null; attempts: number }>,
      number,
    ] = await this.dataSource.query(
      `UPDATE document_jobs SET status = 'failed', finished_at = now(), updated_at = now(), locked_by = NULL,
              error_details = jsonb_build_object('code', 'LEASE_EXPIRED', 'message',
                'the worker stopped heartbeating on every attempt (crash or hang)', 'attempts', attempts)
       WHERE status = 'running' AND lease_expires_at < now() AND attempts >= max_attempts
       RETURNING id, document_id, revision, attempts`,
    );
    return rows.map((r) => ({
      id: r.id,
      documentId: r.document_id,
      revision: r.revision,
      attempts: r.attempts,
    }));
  }

  /** Puts jobs with expired leases back in the queue (the claim query also takes them directly). */
  async requeueExpired(): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `UPDATE document_jobs SET status = 'queued', locked_by = NULL, lease_expires_at = NULL, run_after = now(), updated_at = now()
       WHERE status = 'running' AND lease_expires_at < now()`,
    );
    return count;
  }

  /** Finished jobs past retention, except failures nobody has resolved yet (the dead letter). */
  async deleteFinishedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM document_jobs
       WHERE status IN ('done', 'failed', 'superseded', 'cancelled') AND finished_at < $1
         AND (status <> 'failed' OR resolved_at IS NOT NULL)`,
      [cutoff],
    );
    return count;
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
              j.error_details, j.created_at, j.finished_at, j.resolved_at, j.resolution,
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
              error_details = jsonb_build_object('code', 'DOCUMENT_DELETED', 'message', 'the document was deleted')
       WHERE document_id = $1 AND kind = 'ingest' AND status IN ('queued', 'running', 'loaded')`,
      [documentId],
    );
    return count;
  }

  async pendingCount(): Promise<number> {
    const [row]: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM document_jobs WHERE status IN ('queued', 'running')`,
    );
    return Number(row.count);
  }

  async nextDueInMs(): Promise<number | null> {
    const [row]: Array<{ wait_ms: number | null }> = await this.dataSource.query(
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM (min(CASE WHEN status = 'queued' THEN run_after ELSE lease_expires_at END) - now())) * 1000)::float8 AS wait_ms
       FROM document_jobs WHERE status IN ('queued', 'running')`,
    );
    return row.wait_ms === null ? null : Number(row.wait_ms);
  }
}
