import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { FileLanguage } from '../parsing/code-parser.types';
import type { CodeFileView, DiffApplyResult, DiffStatus, DiffView, RepositoryView } from '../code.types';

export interface StoredFileWrite {
  path: string;
  text: string | null;
  hash: string | null;
  language: FileLanguage;
}

export interface ClaimedDiff {
  id: string;
  tenantId: string;
  repositoryId: string;
  userId: string;
  paths: string[];
  attempts: number;
  maxAttempts: number;
}

export interface CurrentFile {
  id: string;
  path: string;
  text: string;
  contentHash: string;
  language: FileLanguage;
  indexedHash: string | null;
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
 * Repositories, their files' current texts and the diff queue. The queue is a table claimed with
 * `FOR UPDATE SKIP LOCKED` under a lease; a diff is claimable only when no earlier diff of its
 * repository is still queued or running, so one repository's diffs are indexed in request order by
 * any number of workers.
 */
@Injectable()
export class CodeStoreRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Finds or creates the repository and locks its row until the transaction ends. */
  async lockRepository(em: EntityManager, tenantId: string, userId: string, name: string): Promise<string> {
    const rows: Array<{ id: string }> = await em.query(
      `INSERT INTO code_repositories (tenant_id, user_id, name) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, user_id, name) DO UPDATE SET updated_at = now()
       RETURNING id`,
      [tenantId, userId, name],
    );
    return rows[0].id;
  }

  async loadTexts(em: EntityManager, repositoryId: string, paths: string[]): Promise<Map<string, string>> {
    if (paths.length === 0) return new Map();
    const rows: Array<{ path: string; text: string }> = await em.query(
      `SELECT path, text FROM code_files WHERE repository_id = $1 AND path = ANY($2)`,
      [repositoryId, paths],
    );
    return new Map(rows.map((r) => [r.path, r.text]));
  }

  async writeFiles(em: EntityManager, tenantId: string, repositoryId: string, files: StoredFileWrite[]) {
    const deleted = files.filter((f) => f.text === null).map((f) => f.path);
    if (deleted.length)
      await em.query(`DELETE FROM code_files WHERE repository_id = $1 AND path = ANY($2)`, [
        repositoryId,
        deleted,
      ]);
    const upserts = files.filter((f) => f.text !== null);
    if (upserts.length === 0) return;
    await em.query(
      `INSERT INTO code_files (tenant_id, repository_id, path, text, content_hash, language, size)
       SELECT $1, $2, x.path, x.text, x.hash, x.language, octet_length(x.text)
       FROM jsonb_to_recordset($3::jsonb) AS x(path text, text text, hash text, language text)
       ON CONFLICT (repository_id, path) DO UPDATE
         SET text = EXCLUDED.text, content_hash = EXCLUDED.content_hash, language = EXCLUDED.language,
             size = EXCLUDED.size, updated_at = now()`,
      [tenantId, repositoryId, JSON.stringify(upserts)],
    );
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
   * The tenant's diffs queued or running and the files they change, under the tenant's advisory lock
   * (held to the end of the transaction) so that concurrent requests count each other.
   */
  async lockQueuedWork(em: EntityManager, tenantId: string): Promise<{ diffs: number; files: number }> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('code_diffs:' || $1))`, [tenantId]);
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

  /**
   * Claims the next due diff (or one whose lease expired). Fair across tenants: the diff goes to the
   * tenant with the fewest running diffs, then the one claimed from longest ago (round-robin), then
   * its oldest claimable diff; a tenant holding `maxRunningPerTenant` running diffs (0: no cap) gets
   * none until one ends, so one tenant's large diffs cannot hold every worker slot.
   */
  async claim(workerId: string, leaseSeconds: number, maxRunningPerTenant = 0): Promise<ClaimedDiff | null> {
    const [rows]: [
      Array<{
        id: string;
        tenant_id: string;
        repository_id: string;
        user_id: string;
        changes: string[];
        attempts: number;
        max_attempts: number;
      }>,
      number,
    ] = await this.dataSource.query(
      `-- MATERIALIZED: computed once per tenant; inlined, its subqueries ran once per eligible job
       -- (seconds per claim with thousands queued, so a bulk upload was quadratic).
       WITH turns AS MATERIALIZED (
         SELECT t.tenant_id,
                (SELECT count(*) FROM code_diffs r
                 WHERE r.tenant_id = t.tenant_id AND r.status = 'running' AND r.lease_expires_at >= now()) AS running,
                (SELECT max(s.claimed_at) FROM code_diffs s WHERE s.tenant_id = t.tenant_id) AS served
         FROM (SELECT DISTINCT tenant_id FROM code_diffs
               WHERE (status = 'queued' AND run_after <= now()) OR (status = 'running' AND lease_expires_at < now())) t)
       UPDATE code_diffs d
       SET status = 'running', attempts = d.attempts + 1, locked_by = $1,
           lease_expires_at = now() + make_interval(secs => $2), claimed_at = now()
       WHERE d.id = (
         SELECT c.id FROM code_diffs c JOIN turns ON turns.tenant_id = c.tenant_id
         WHERE ((c.status = 'queued' AND c.run_after <= now()) OR (c.status = 'running' AND c.lease_expires_at < now()))
           AND ($3::int = 0 OR turns.running < $3::int)
           AND NOT EXISTS (SELECT 1 FROM code_diffs p
                           WHERE p.repository_id = c.repository_id AND p.seq < c.seq
                             AND p.status IN ('queued', 'running'))
         ORDER BY turns.running, turns.served NULLS FIRST, c.seq
         FOR UPDATE OF c SKIP LOCKED
         LIMIT 1)
       RETURNING d.id, d.tenant_id, d.repository_id, d.user_id, d.changes, d.attempts, d.max_attempts`,
      [workerId, leaseSeconds, maxRunningPerTenant],
    );
    const row = rows[0];
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

  async heartbeat(id: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE code_diffs SET lease_expires_at = now() + make_interval(secs => $3)
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [id, workerId, leaseSeconds],
    );
    return result[1] === 1;
  }

  async finish(
    id: string,
    workerId: string,
    status: 'done' | 'failed',
    result: DiffApplyResult | null,
    error: Record<string, unknown> | null,
  ): Promise<boolean> {
    const updated: [unknown[], number] = await this.dataSource.query(
      `UPDATE code_diffs SET status = $3, result = $4::jsonb, error = $5::jsonb, finished_at = now(),
              locked_by = NULL, lease_expires_at = NULL
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [id, workerId, status, result ? JSON.stringify(result) : null, error ? JSON.stringify(error) : null],
    );
    return updated[1] === 1;
  }

  async retryLater(id: string, workerId: string, delaySeconds: number, error: Record<string, unknown>) {
    await this.dataSource.query(
      `UPDATE code_diffs SET status = 'queued', run_after = now() + make_interval(secs => $3), error = $4::jsonb,
              locked_by = NULL, lease_expires_at = NULL
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [id, workerId, delaySeconds, JSON.stringify(error)],
    );
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

  async deleteFinishedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM code_diffs WHERE status IN ('done', 'failed') AND finished_at < $1`,
      [cutoff],
    );
    return count;
  }

  async pendingCount(): Promise<number> {
    const [row]: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM code_diffs WHERE status IN ('queued', 'running')`,
    );
    return Number(row.count);
  }

  async currentFile(repositoryId: string, path: string): Promise<CurrentFile | null> {
    const rows: Array<{
      id: string;
      path: string;
      text: string;
      content_hash: string;
      language: FileLanguage;
      indexed_hash: string | null;
    }> = await this.dataSource.query(
      `SELECT id, path, text, content_hash, language, indexed_hash FROM code_files
       WHERE repository_id = $1 AND path = $2`,
      [repositoryId, path],
    );
    const row = rows[0];
    return row
      ? {
          id: row.id,
          path: row.path,
          text: row.text,
          contentHash: row.content_hash,
          language: row.language,
          indexedHash: row.indexed_hash,
        }
      : null;
  }

  async markIndexed(repositoryId: string, path: string, hash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE code_files SET indexed_hash = $3 WHERE repository_id = $1 AND path = $2 AND content_hash = $3`,
      [repositoryId, path, hash],
    );
  }

  async listRepositories(userId: string | null): Promise<RepositoryView[]> {
    const rows: Array<{
      id: string;
      user_id: string;
      name: string;
      files: string;
      created_at: Date;
      updated_at: Date;
    }> = await this.dataSource.query(
      `SELECT r.id, r.user_id, r.name, r.created_at, r.updated_at,
              (SELECT count(*) FROM code_files f WHERE f.repository_id = r.id) AS files
       FROM code_repositories r WHERE ($1::text IS NULL OR r.user_id = $1) ORDER BY r.user_id, r.name`,
      [userId],
    );
    return rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      name: r.name,
      files: Number(r.files),
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    }));
  }

  async findRepository(id: string): Promise<{ id: string; userId: string; name: string } | null> {
    const rows: Array<{ id: string; user_id: string; name: string }> = await this.dataSource.query(
      `SELECT id, user_id, name FROM code_repositories WHERE id = $1`,
      [id],
    );
    return rows[0] ? { id: rows[0].id, userId: rows[0].user_id, name: rows[0].name } : null;
  }

  async repositoryIdsOf(userId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM code_repositories WHERE user_id = $1`,
      [userId],
    );
    return rows.map((r) => r.id);
  }

  /** Files under a path prefix (a directory, or one file's exact path with its text). */
  async listFiles(repositoryId: string, prefix: string | null, limit: number): Promise<CodeFileView[]> {
    const rows: Array<{
      path: string;
      language: FileLanguage;
      size: number;
      content_hash: string;
      indexed_hash: string | null;
      updated_at: Date;
      text: string | null;
    }> = await this.dataSource.query(
      `SELECT path, language, size, content_hash, indexed_hash, updated_at,
              CASE WHEN path = $2 THEN text END AS text
       FROM code_files WHERE repository_id = $1
         AND ($2::text IS NULL OR path = $2 OR starts_with(path, rtrim($2, '/') || '/'))
       ORDER BY path LIMIT $3`,
      [repositoryId, prefix, limit],
    );
    return rows.map((r) => ({
      path: r.path,
      language: r.language,
      size: r.size,
      content_hash: r.content_hash,
      indexed: r.indexed_hash === r.content_hash,
      updated_at: r.updated_at.toISOString(),
      ...(r.text !== null ? { text: r.text } : {}),
    }));
  }
}
