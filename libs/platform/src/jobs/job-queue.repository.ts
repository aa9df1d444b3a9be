import type { DataSource, EntityManager } from 'typeorm';
import { JobError, TenantTurn, tenantTurnOrder } from './job-queue.util';

/**
 * A table that holds one kind of leased job. Every such table has the queue's columns: `id`,
 * `tenant_id`, `status` (`queued`, `running`, then a finished status), `attempts`, `max_attempts`,
 * `run_after`, `locked_by`, `lease_expires_at`, `heartbeat_at`, `claimed_at`, `error` (jsonb, a
 * JobError), `created_at`, `updated_at` and `finished_at`; the kind adds its own payload columns. The
 * SQL fragments below are constants of the kind's repository, never request input.
 */
export interface JobQueueTable {
  table: string;
  /** A further condition a due job must meet, over alias `c` (code diffs wait for earlier ones). */
  claimableWhere?: string;
  /** The order of one tenant's due jobs, over alias `c`. */
  orderBy: string;
  /** The kind's columns a claim returns (of alias `j`), besides id, tenant_id, attempts, max_attempts. */
  returning: readonly string[];
  /** Assignments every end of a job adds; `status` is the SQL of the new status. */
  onFinish?: (status: string) => string;
  /** The statuses a job ends in; cleanup deletes them after retention. */
  finishedStatuses: readonly string[];
  /** Finished jobs cleanup keeps however old (failures nobody has looked at yet). */
  keepWhere?: string;
}

/** What every claimed job carries, whatever its kind. */
export interface QueuedJobRow {
  id: string;
  tenant_id: string;
  attempts: number;
  max_attempts: number;
}

export interface JobEnd {
  status: string;
  error?: JobError | null;
  /** Kind columns (jsonb) the end writes too, such as a diff's result. */
  json?: Record<string, unknown>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a column name: ${name}`);
  return name;
}

const DUE = `((c.status = 'queued' AND c.run_after <= now())
              OR (c.status = 'running' AND c.lease_expires_at < now() AND c.attempts < c.max_attempts))`;

const LEASE_EXPIRED_MESSAGE = 'the worker stopped heartbeating on every attempt (crash or hang)';

/**
 * The durable job queue every kind of job shares (document ingestion, code diffs): a fair claim
 * under a lease with `FOR UPDATE SKIP LOCKED`, heartbeats, the end of a job with its error, retry
 * after a delay, recovery of expired leases and cleanup. One instance per table; the kind's
 * repository builds it and keeps the kind's own queries (enqueue, views).
 */
export class JobQueue {
  private readonly table: string;
  private readonly due: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly spec: JobQueueTable,
  ) {
    this.table = identifier(spec.table);
    this.due = spec.claimableWhere ? `${DUE} AND (${spec.claimableWhere})` : DUE;
    spec.returning.forEach(identifier);
  }

  /** The tenants with due work, for the claim's turn order (tenantTurnOrder). */
  async turns(): Promise<TenantTurn[]> {
    const rows: Array<{ tenant_id: string; running: number; served: Date | null; waiting_since: Date }> =
      await this.dataSource.query(
        `SELECT t.tenant_id, t.waiting_since,
                (SELECT count(*)::int FROM ${this.table} r
                 WHERE r.tenant_id = t.tenant_id AND r.status = 'running' AND r.lease_expires_at >= now()) AS running,
                (SELECT max(s.claimed_at) FROM ${this.table} s WHERE s.tenant_id = t.tenant_id) AS served
         FROM (SELECT c.tenant_id, min(c.run_after) AS waiting_since FROM ${this.table} c
               WHERE ${this.due} GROUP BY c.tenant_id) t`,
      );
    return rows.map((row) => ({
      tenantId: row.tenant_id,
      running: Number(row.running),
      lastClaimedAt: row.served === null ? null : new Date(row.served),
      waitingSince: new Date(row.waiting_since),
    }));
  }

  /**
   * Claims the next due job, or one whose lease expired with attempts left (its worker died), and
   * counts the attempt. Tenants take turns in `tenantTurnOrder`; within a tenant the kind's order
   * applies. SKIP LOCKED lets any number of workers and processes poll without blocking; a tenant
   * whose due jobs are all being claimed right now yields to the next one.
   */
  async claim<R extends QueuedJobRow>(
    workerId: string,
    leaseSeconds: number,
    maxRunningPerTenant = 0,
  ): Promise<R | null> {
    const order = tenantTurnOrder(await this.turns(), maxRunningPerTenant);
    if (order.length === 0) return null;
    const [rows]: [R[], number] = await this.dataSource.query(
      `UPDATE ${this.table} j
       SET status = 'running', attempts = j.attempts + 1, locked_by = $1,
           lease_expires_at = now() + make_interval(secs => $2), heartbeat_at = now(), claimed_at = now(),
           updated_at = now()
       WHERE j.id = (
         SELECT c.id FROM ${this.table} c
         WHERE c.tenant_id = ANY($3::uuid[]) AND ${this.due}
         ORDER BY array_position($3::uuid[], c.tenant_id), ${this.spec.orderBy}
         FOR UPDATE OF c SKIP LOCKED
         LIMIT 1)
       RETURNING ${['id', 'tenant_id', 'attempts', 'max_attempts', ...this.spec.returning].map((c) => `j.${c}`).join(', ')}`,
      [workerId, leaseSeconds, order],
    );
    return rows[0] ?? null;
  }

  /** Extends the lease; false when the job is no longer this worker's (expired and reclaimed, or ended). */
  async heartbeat(id: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `UPDATE ${this.table} SET lease_expires_at = now() + make_interval(secs => $3), heartbeat_at = now()
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [id, workerId, leaseSeconds],
    );
    return count === 1;
  }

  /**
   * Ends a job this worker holds, with its error (null once it succeeded); false when it no longer
   * holds it. A failed end needs an error with a code (the table's check refuses one without).
   */
  async finish(em: EntityManager | null, id: string, workerId: string, end: JobEnd): Promise<boolean> {
    const json = Object.entries(end.json ?? {});
    const extra = json.map(([column], i) => `, ${identifier(column)} = $${5 + i}::jsonb`).join('');
    const onFinish = this.spec.onFinish ? `, ${this.spec.onFinish('$3::varchar')}` : '';
    const [, count]: [unknown[], number] = await (em ?? this.dataSource).query(
      `UPDATE ${this.table} SET status = $3::varchar, error = $4::jsonb, finished_at = now(), updated_at = now(),
              locked_by = NULL, lease_expires_at = NULL${onFinish}${extra}
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [
        id,
        workerId,
        end.status,
        end.error ? JSON.stringify(end.error) : null,
        ...json.map(([, value]) => (value === null || value === undefined ? null : JSON.stringify(value))),
      ],
    );
    return count === 1;
  }

  /** Queues a job this worker holds again after `delaySeconds`, keeping the attempt's error. */
  async retryLater(
    em: EntityManager | null,
    id: string,
    workerId: string,
    delaySeconds: number,
    error: JobError,
  ): Promise<boolean> {
    const [, count]: [unknown[], number] = await (em ?? this.dataSource).query(
      `UPDATE ${this.table} SET status = 'queued', run_after = now() + make_interval(secs => $3), error = $4::jsonb,
              locked_by = NULL, lease_expires_at = NULL, updated_at = now()
       WHERE id = $1 AND locked_by = $2 AND status = 'running'`,
      [id, workerId, delaySeconds, JSON.stringify(error)],
    );
    return count === 1;
  }

  /**
   * Jobs whose lease expired after their last allowed attempt: their worker died on them every time
   * (a poison input that crashes the process). Marks them failed with `LEASE_EXPIRED`, keeping the
   * error an earlier attempt recorded as `previous`, and returns them with `columns`.
   */
  async failExhaustedExpired<R extends QueuedJobRow>(columns: readonly string[] = []): Promise<R[]> {
    const onFinish = this.spec.onFinish ? `, ${this.spec.onFinish(`'failed'`)}` : '';
    const [rows]: [R[], number] = await this.dataSource.query(
      `UPDATE ${this.table} SET status = 'failed', finished_at = now(), updated_at = now(), locked_by = NULL,
              lease_expires_at = NULL${onFinish},
              error = jsonb_build_object('code', 'LEASE_EXPIRED', 'message', $1::text, 'attempts', attempts)
                      || CASE WHEN error IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('previous', error) END
       WHERE status = 'running' AND lease_expires_at < now() AND attempts >= max_attempts
       RETURNING ${['id', 'tenant_id', 'attempts', 'max_attempts', ...columns.map(identifier)].join(', ')}`,
      [LEASE_EXPIRED_MESSAGE],
    );
    return rows;
  }

  /** Puts jobs with expired leases and attempts left back in the queue (the claim also takes them). */
  async requeueExpired(): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `UPDATE ${this.table} SET status = 'queued', locked_by = NULL, lease_expires_at = NULL, run_after = now(),
              updated_at = now()
       WHERE status = 'running' AND lease_expires_at < now() AND attempts < max_attempts`,
    );
    return count;
  }

  /** Finished jobs past retention, except those the kind keeps (unresolved failures). */
  async deleteFinishedBefore(cutoff: Date): Promise<number> {
    const keep = this.spec.keepWhere ? ` AND NOT (${this.spec.keepWhere})` : '';
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM ${this.table} WHERE status = ANY($2::varchar[]) AND finished_at < $1${keep}`,
      [cutoff, this.spec.finishedStatuses],
    );
    return count;
  }

  /**
   * Serialises a tenant's enqueues to the end of the transaction (an advisory lock per table and
   * tenant), so concurrent requests count each other against the tenant's queued-work limits.
   */
  async lockTenant(em: EntityManager, tenantId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext($1 || ':' || $2))`, [this.table, tenantId]);
  }

  /**
   * Milliseconds until the next job is due (a retry, or an expiring lease with attempts left); null
   * when none is. An exhausted job whose lease expired waits for recovery, not for a claim.
   */
  async nextDueInMs(): Promise<number | null> {
    // GREATEST(0, NULL) is 0: clamped here, an empty queue reads null rather than "due now".
    const [row]: Array<{ wait_ms: number | null }> = await this.dataSource.query(
      `SELECT (EXTRACT(EPOCH FROM (min(CASE WHEN status = 'queued' THEN run_after ELSE lease_expires_at END) - now())) * 1000)::float8 AS wait_ms
       FROM ${this.table} WHERE status = 'queued' OR (status = 'running' AND attempts < max_attempts)`,
    );
    return row.wait_ms === null ? null : Math.max(0, Number(row.wait_ms));
  }
}
