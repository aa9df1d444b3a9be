import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { JobQueue, type JobError, type JobQueueTable, type QueuedJobRow } from '@app/platform';
import type { DiffApplyResult, DiffStatus, DiffView } from '../code.types';

export interface ClaimedDiff {
  id: string;
  tenantId: string;
  repositoryId: string;
  userId: string;
  paths: string[];
  attempts: number;
  maxAttempts: number;
}

interface ClaimedDiffRow extends QueuedJobRow {
  repository_id: string;
  user_id: string;
  changes: string[];
}

interface DiffRow {
  id: string;
  status: DiffStatus;
  repository_id: string;
  repository: string;
  user_id: string;
  commit: string | null;
  changes: string[];
  result: DiffApplyResult | null;
  error: Record<string, unknown> | null;
  attempts: number;
  created_at: Date;
  finished_at: Date | null;
}

const toDiffView = (row: DiffRow): DiffView => ({
  diff_id: row.id,
  status: row.status,
  repository_id: row.repository_id,
  repository: row.repository,
  user_id: row.user_id,
  commit: row.commit,
  changed_files: row.changes,
  files_processed: row.result?.files_processed ?? null,
  embeddings_upserted: row.result?.embeddings_upserted ?? null,
  graph_nodes_updated: row.result?.graph_nodes_updated ?? null,
  failed_files: row.result?.failed_files ?? [],
  error: row.error,
  attempts: row.attempts,
  created_at: row.created_at.toISOString(),
  finished_at: row.finished_at ? row.finished_at.toISOString() : null,
});

/**
 * The code diff kind's table in the one job queue (JobQueue). A diff is claimable only when no
 * earlier diff of its repository is still queued or running, so one repository's diffs are indexed
 * in request order by any number of workers.
 */
const CODE_DIFFS: JobQueueTable = {
  table: 'code_diffs',
  claimableWhere: `NOT EXISTS (SELECT 1 FROM code_diffs p
                               WHERE p.repository_id = c.repository_id AND p.seq < c.seq
                                 AND p.status IN ('queued', 'running'))`,
  orderBy: 'c.seq',
  returning: ['repository_id', 'user_id', 'changes'],
  finishedStatuses: ['done', 'failed'],
};

/**
 * Diff requests: the queue's claim, lease, end, retry, recovery and cleanup are the shared
 * JobQueue's; this adds the diff's own rows (enqueue, view, the tenant's queued work, re-queueing
 * unindexed files).
 */
@Injectable()
export class CodeDiffsRepository {
  readonly queue: JobQueue;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.queue = new JobQueue(dataSource, CODE_DIFFS);
  }

  /** One transaction for a diff request: its repository lock, its files and its queued diff. */
  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertDiff(
    em: EntityManager,
    input: {
      tenantId: string;
      repositoryId: string;
      userId: string;
      commit: string | null;
      requestHash: string;
      paths: string[];
      maxAttempts: number;
      done: boolean;
    },
  ): Promise<string> {
    const emptyResult: DiffApplyResult = {
      files_processed: 0,
      embeddings_upserted: 0,
      graph_nodes_updated: 0,
      failed_files: [],
    };
    const rows: Array<{ id: string }> = await em.query(
      `INSERT INTO code_diffs (tenant_id, repository_id, user_id, "commit", request_hash, changes, status, max_attempts,
                               result, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::varchar, $8, $9::jsonb, CASE WHEN $7::varchar = 'done' THEN now() END)
       RETURNING id`,
      [
        input.tenantId,
        input.repositoryId,
        input.userId,
        input.commit,
        input.requestHash,
        JSON.stringify(input.paths),
        input.done ? 'done' : 'queued',
        input.maxAttempts,
        input.done ? JSON.stringify(emptyResult) : null,
      ],
    );
    return rows[0].id;
  }

  /**
   * The tenant's diffs queued or running and the files they change, under the tenant's queue lock
   * (held to the end of the transaction) so that concurrent requests count each other.
   */
  async lockQueuedWork(em: EntityManager, tenantId: string): Promise<{ diffs: number; files: number }> {
    await this.queue.lockTenant(em, tenantId);
    const [row]: Array<{ diffs: number; files: number }> = await em.query(
      `SELECT count(*)::int AS diffs, COALESCE(sum(jsonb_array_length(changes)), 0)::int AS files
       FROM code_diffs WHERE tenant_id = $1 AND status IN ('queued', 'running')`,
      [tenantId],
    );
    return row;
  }

  async findDiff(id: string): Promise<DiffView | null> {
    const rows: DiffRow[] = await this.dataSource.query(
      `SELECT d.id, d.status, d.repository_id, r.name AS repository, d.user_id, d."commit", d.changes, d.result,
              d.error, d.attempts, d.created_at, d.finished_at
       FROM code_diffs d JOIN code_repositories r ON r.id = d.repository_id WHERE d.id = $1`,
      [id],
    );
    return rows[0] ? toDiffView(rows[0]) : null;
  }

  /** The next due diff, fair across tenants (JobQueue.claim). */
  async claim(workerId: string, leaseSeconds: number, maxRunningPerTenant = 0): Promise<ClaimedDiff | null> {
    const row = await this.queue.claim<ClaimedDiffRow>(workerId, leaseSeconds, maxRunningPerTenant);
    if (!row) return null;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      repositoryId: row.repository_id,
      userId: row.user_id,
      paths: row.changes,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
    };
  }

  heartbeat(id: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    return this.queue.heartbeat(id, workerId, leaseSeconds);
  }

  /** Records an indexed diff's result; false when this worker no longer holds it. */
  complete(id: string, workerId: string, result: DiffApplyResult): Promise<boolean> {
    return this.queue.finish(null, id, workerId, { status: 'done', error: null, json: { result } });
  }

  /** Fails a diff this worker holds, keeping its error. */
  fail(id: string, workerId: string, error: JobError): Promise<boolean> {
    return this.queue.finish(null, id, workerId, { status: 'failed', error });
  }

  retryLater(id: string, workerId: string, delaySeconds: number, error: JobError): Promise<boolean> {
    return this.queue.retryLater(null, id, workerId, delaySeconds, error);
  }

  /** Diffs whose worker died on their last attempt, now failed with LEASE_EXPIRED; returns how many. */
  async failExhaustedExpired(): Promise<number> {
    return (await this.queue.failExhaustedExpired()).length;
  }

  /**
   * Queues a diff for every repository with files whose indexed hash lags their content (a file that
   * failed to index, or whose diff gave up) and no diff queued or running; returns how many.
   */
  async enqueueStaleFiles(olderThanSeconds: number, maxAttempts: number): Promise<number> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO code_diffs (tenant_id, repository_id, user_id, request_hash, changes, status, max_attempts)
       SELECT r.tenant_id, r.id, r.user_id, repeat('0', 64), jsonb_agg(f.path ORDER BY f.path), 'queued', $2
       FROM code_files f JOIN code_repositories r ON r.id = f.repository_id
       WHERE f.indexed_hash IS DISTINCT FROM f.content_hash
         AND f.updated_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM code_diffs d WHERE d.repository_id = r.id AND d.status IN ('queued', 'running'))
       GROUP BY r.tenant_id, r.id, r.user_id
       RETURNING id`,
      [olderThanSeconds, maxAttempts],
    );
    return rows.length;
  }

  deleteFinishedBefore(cutoff: Date): Promise<number> {
    return this.queue.deleteFinishedBefore(cutoff);
  }
}
