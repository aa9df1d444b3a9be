import { Injectable, Optional } from '@nestjs/common';
import type { PoolClient, QueryResult } from 'pg';
import {
  ClusterLimits,
  currentDatabaseScope,
  DatabaseInfo,
  SQL_TOOL_ROLE,
  SqlToolDatabase,
} from '@app/platform';
import { BoundedSemaphore, ToolsConfig } from '@app/tools';
import { OpsConfig } from '../ops.config';
import { SQL_ROW_COUNTER, SQL_ROW_COUNTER_MAX } from './sql-row-counter.util';
import { SqlToolTimeBudget } from './sql-tool-time-budget';

/**
 * The OPS tables as an `sql` tool sees them: each name is a CTE over the real table restricted to the
 * executing tenant ($1), without the tenant column. NOT MATERIALIZED lets filters reach the indexes.
 */
export const SQL_TOOL_RELATIONS: Record<string, { table: string; columns: string[] }> = {
  configuration_items: {
    table: 'ops_configuration_items',
    columns: [
      'id',
      'name',
      'ci_type',
      'environment',
      'status',
      'owner',
      'tags',
      'attributes',
      'description',
      'created_at',
      'updated_at',
    ],
  },
  metrics: { table: 'ops_metric_samples', columns: ['ci_id', 'metric_name', 'step_seconds', 'ts', 'value'] },
  history_events: {
    table: 'ops_history_events',
    columns: ['id', 'ci_id', 'occurred_at', 'kind', 'severity', 'title', 'details', 'attributes'],
  },
  ci_relations: { table: 'ops_ci_relations', columns: ['source_id', 'target_id', 'relation_type'] },
};

const TENANT_SCOPE = Object.entries(SQL_TOOL_RELATIONS)
  .map(
    ([name, { table, columns }]) =>
      `${name} AS NOT MATERIALIZED (SELECT ${columns.join(', ')} FROM public.${table} WHERE tenant_id = $1)`,
  )
  .join(',\n');

/** Planner cost above which a query is refused before it runs (the embedded database ignores statement_timeout). */
export const SQL_TOOL_MAX_PLAN_COST = 2_000_000;

/** Embedded: the tenant's sql tools forced too many database restarts in the last hour. */
export class SqlToolSuspendedError extends Error {
  constructor(
    readonly interrupts: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `this tenant's sql tools ran past their timeout ${interrupts} times in the last hour; each one restarts the embedded database for every tenant, so sql tools are paused for ${retryAfterSeconds} s (EMBEDDED_SQL_INTERRUPTS_PER_HOUR)`,
    );
  }
}

/**
 * The tenant's sql tools used their database time for now (embedded: EMBEDDED_SQL_SECONDS_PER_HOUR;
 * native: SQL_TOOL_SECONDS_PER_HOUR).
 */
export class SqlToolBudgetSpentError extends Error {
  constructor(
    readonly secondsPerHour: number,
    readonly retryAfterSeconds: number,
    readonly embedded = true,
  ) {
    super(
      embedded
        ? `this tenant's sql tools used their ${secondsPerHour} s per hour of embedded database time (every query counts: the embedded database runs one statement at a time for every tenant); retry in ${retryAfterSeconds} s (EMBEDDED_SQL_SECONDS_PER_HOUR)`
        : `this tenant's sql tools used their ${secondsPerHour} s per hour of database time (every query's duration counts: the database's cores serve every tenant); retry in ${retryAfterSeconds} s (SQL_TOOL_SECONDS_PER_HOUR)`,
    );
  }
}

/** The tenant already runs SQL_TOOL_MAX_CONCURRENT_PER_TENANT sql tool queries, and none ended in time. */
export class SqlToolBusyError extends Error {
  constructor(
    readonly maxConcurrent: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `this tenant already runs ${maxConcurrent} sql tool ${maxConcurrent === 1 ? 'query' : 'queries'} at once, and none ended in time; retry in ${retryAfterSeconds} s (SQL_TOOL_MAX_CONCURRENT_PER_TENANT)`,
    );
  }
}

/** Native: the longest timeout_ms an sql tool may have (SQL_TOOL_DEFAULTS.maxTimeoutMs), the budget's burst. */
const NATIVE_MAX_TIMEOUT_MS = 60_000;

/** The executor counted more rows than SQL_TOOL_MAX_ROWS_EXAMINED at some level of the query. */
export class SqlRowCapExceededError extends Error {
  constructor(readonly maxRows: number) {
    super(
      `the query made more than ${maxRows} rows in its FROM/WHERE clauses and was stopped (SQL_TOOL_MAX_ROWS_EXAMINED)`,
    );
  }
}

/** Creates the session's row counter once (a temporary sequence the sql tool role may advance). */
const ENSURE_ROW_COUNTER = `DO $$ BEGIN
  IF pg_catalog.to_regclass('${SQL_ROW_COUNTER}') IS NULL THEN
    CREATE TEMPORARY SEQUENCE ${SQL_ROW_COUNTER.replace('pg_temp.', '')} MAXVALUE ${SQL_ROW_COUNTER_MAX};
    GRANT USAGE ON SEQUENCE ${SQL_ROW_COUNTER} TO ${SQL_TOOL_ROLE};
  END IF;
END $$`;

export class SqlCostExceededError extends Error {
  constructor(readonly cost: number) {
    super(
      `the query is too expensive to run (estimated cost ${Math.round(cost)} > ${SQL_TOOL_MAX_PLAN_COST})`,
    );
  }
}

const INT8 = 20;
const NUMERIC = 1700;

export interface SqlRows {
  columns: Array<{ name: string }>;
  rows: Record<string, unknown>[];
  truncated: boolean;
}

/** A column value as JSON: dates as ISO text, int8/numeric as numbers when exact. */
export function jsonValue(value: unknown, typeId: number): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if ((typeId === INT8 || typeId === NUMERIC) && typeof value === 'string') {
    const number = Number(value);
    return Number.isFinite(number) && (typeId === NUMERIC || Number.isSafeInteger(number)) ? number : value;
  }
  return value;
}

@Injectable()
export class SqlToolRepository {
  /** sql tools get at most this share of the pool, so searches and the rest always find a connection. */
  private readonly share: BoundedSemaphore;
  /** Embedded: when each tenant's sql tool queries were interrupted (the database thread restarted). */
  private readonly interrupts = new Map<string, number[]>();
  private readonly interruptsPerHour: number;
  private readonly maxRowsExamined: number;
  /** Each tenant's database time, every query counted (per process: see SECURITY.md). */
  private readonly budget: SqlToolTimeBudget;
  private readonly secondsPerHour: number;
  private readonly maxTimeoutMs: number;
  /** Each tenant's running sql tool queries in this process (the first gate; Redis leases are the second). */
  private readonly tenantSlots = new Map<string, BoundedSemaphore>();

  constructor(
    private readonly sqlTool: SqlToolDatabase,
    private readonly database: DatabaseInfo,
    private readonly config: OpsConfig,
    private readonly tools: ToolsConfig,
    @Optional() private readonly limits?: ClusterLimits,
  ) {
    this.interruptsPerHour = config.EMBEDDED_SQL_INTERRUPTS_PER_HOUR;
    const embedded = database.backend === 'embedded';
    this.maxRowsExamined = config.SQL_TOOL_MAX_ROWS_EXAMINED ?? (embedded ? 200_000 : 1_000_000);
    this.maxTimeoutMs = embedded ? config.EMBEDDED_SQL_MAX_TIMEOUT_MS : Number.POSITIVE_INFINITY;
    this.secondsPerHour = embedded ? config.EMBEDDED_SQL_SECONDS_PER_HOUR : config.SQL_TOOL_SECONDS_PER_HOUR;
    // Embedded: one query's maximum may be spent ahead; native: one query of the longest timeout_ms.
    this.budget = new SqlToolTimeBudget(
      this.secondsPerHour * 1000,
      Math.min(
        embedded ? config.EMBEDDED_SQL_MAX_TIMEOUT_MS : NATIVE_MAX_TIMEOUT_MS,
        this.secondsPerHour * 1000,
      ),
    );
    // Embedded runs one statement at a time: a second sql tool query would only wait inside the
    // database, its timeout running, ahead of other tenants' work. It waits here instead, uncharged.
    this.share = new BoundedSemaphore(sqlTool.concurrency);
  }

  /**
   * Runs a checked query (placeholders already `$2..`) for one tenant in a read-only transaction with
   * a statement timeout, the OPS tables shadowed by tenant-filtered CTEs and nothing else on the path.
   */
  async run(
    tenantId: string,
    checkedText: string,
    values: unknown[],
    rowLimit: number,
    timeoutMs: number,
  ): Promise<SqlRows> {
    this.refuseWhileSuspended(tenantId);
    this.refuseWhenBudgetSpent(tenantId);
    // The tenant's own cap first, so its extra queries never queue for the process-wide share ahead of
    // other tenants' queries.
    const releaseTenant = await this.acquireTenantSlot(tenantId, timeoutMs);
    // The wait counts against the tool's own timeout (the registry's deadline), never forever.
    const release = await this.share.acquire(timeoutMs);
    if (!release) {
      releaseTenant();
      throw Object.assign(new Error('sql tool capacity busy'), { code: '57014' });
    }
    const started = performance.now();
    try {
      // Again once its turn came: the query ahead of it may have spent the budget or restarted the database.
      this.refuseWhileSuspended(tenantId);
      this.refuseWhenBudgetSpent(tenantId);
      return await this.runNow(
        tenantId,
        checkedText,
        values,
        rowLimit,
        Math.min(timeoutMs, this.maxTimeoutMs),
      );
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (
        code === '2200H' &&
        String((error as Error).message).includes(SQL_ROW_COUNTER.replace('pg_temp.', ''))
      )
        throw new SqlRowCapExceededError(this.maxRowsExamined);
      throw error;
    } finally {
      if (this.budget.enabled) this.budget.charge(tenantId, performance.now() - started);
      release();
      releaseTenant();
    }
  }

  /** sql tool queries of the tenant running in this process now (0 once none runs or waits). */
  runningFor(tenantId: string): number {
    return this.tenantSlots.get(tenantId)?.running ?? 0;
  }

  /**
   * One of the tenant's SQL_TOOL_MAX_CONCURRENT_PER_TENANT slots: a semaphore in this process, then a
   * lease of the tenant's cluster-wide semaphore in Redis (renewed while the query runs), so the cap
   * holds across replicas. Waits at most TOOL_QUEUE_WAIT_MS (and never past the query's timeout), then
   * throws SqlToolBusyError (429 RATE_LIMITED).
   */
  private async acquireTenantSlot(tenantId: string, timeoutMs: number): Promise<() => void> {
    const limit = this.config.SQL_TOOL_MAX_CONCURRENT_PER_TENANT;
    const waitMs = Math.max(0, Math.min(this.tools.TOOL_QUEUE_WAIT_MS, timeoutMs));
    const busy = () =>
      new SqlToolBusyError(limit, Math.max(1, Math.ceil(this.tools.TOOL_QUEUE_WAIT_MS / 1000)));
    const deadline = Date.now() + waitMs;
    let semaphore = this.tenantSlots.get(tenantId);
    if (!semaphore) {
      semaphore = new BoundedSemaphore(limit);
      this.tenantSlots.set(tenantId, semaphore);
    }
    const releaseHere = await semaphore.acquire(waitMs);
    const releaseLocal = () => {
      releaseHere?.();
      if (semaphore.running === 0 && semaphore.queued === 0) this.tenantSlots.delete(tenantId);
    };
    if (!releaseHere) {
      releaseLocal();
      throw busy();
    }
    if (!this.limits) return releaseLocal;
    const key = `sql-tool:running:${tenantId}`;
    const leaseSeconds = this.tools.TOOL_SLOT_LEASE_SECONDS;
    for (let wait = 25; ; wait = Math.min(wait * 2, 250)) {
      const grant = await this.limits.acquire(key, { limit, leaseSeconds, keepAlive: true });
      if (grant.granted)
        return () => {
          void grant.slot.release();
          releaseLocal();
        };
      const left = deadline - Date.now();
      if (left <= 0) {
        releaseLocal();
        throw busy();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
    }
  }

  private refuseWhenBudgetSpent(tenantId: string): void {
    if (!this.budget.enabled) return;
    const retryAfter = this.budget.retryAfterSeconds(tenantId);
    if (retryAfter > 0)
      throw new SqlToolBudgetSpentError(
        this.secondsPerHour,
        retryAfter,
        this.database.backend === 'embedded',
      );
  }

  private async runNow(
    tenantId: string,
    checkedText: string,
    values: unknown[],
    rowLimit: number,
    timeoutMs: number,
  ): Promise<SqlRows> {
    const scope = currentDatabaseScope();
    if (scope.tenantId && scope.tenantId !== tenantId)
      throw new Error('an sql tool may only run for the tenant of the current request');
    const text = `WITH ${TENANT_SCOPE}\nSELECT * FROM (\n${checkedText}\n) AS sql_tool_result LIMIT ${Math.floor(rowLimit) + 1}`;
    const runner = this.sqlTool.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    try {
      await runner.query(ENSURE_ROW_COUNTER);
      await runner.startTransaction();
      await runner.query('SET TRANSACTION READ ONLY');
      // The counter's last value is its maximum: the (cap + 1)th nextval fails the statement.
      await runner.query(
        `SELECT pg_catalog.setval('${SQL_ROW_COUNTER}', ${SQL_ROW_COUNTER_MAX} - $1::int8)`,
        [this.maxRowsExamined],
      );
      await runner.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
      await runner.query('SET LOCAL search_path = pg_catalog');
      // The guard parsed the text with standard-conforming strings; the server must read it the same way.
      await runner.query('SET LOCAL standard_conforming_strings = on');
      // Second wall under the guard: a role that can read only the four OPS tables, under row-level
      // security for exactly this tenant. Native: the connection logged in as that role, so nothing a
      // statement does returns it to another; embedded: a SET LOCAL ROLE (SECURITY.md says its limits).
      await runner.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
      if (this.sqlTool.switchToRole) await runner.query(`SET LOCAL ROLE ${this.sqlTool.switchToRole}`);
      const params = [tenantId, ...values];
      const plan: QueryResult<{ 'QUERY PLAN': Array<{ Plan: { 'Total Cost': number } }> }> =
        await client.query({
          text: `EXPLAIN (FORMAT JSON) ${text}`,
          values: params,
        });
      const cost = plan.rows[0]['QUERY PLAN'][0].Plan['Total Cost'];
      if (cost > SQL_TOOL_MAX_PLAN_COST) throw new SqlCostExceededError(cost);
      const result = await this.queryWithDeadline(tenantId, client, text, params, timeoutMs);
      const types = new Map(result.fields.map((f) => [f.name, f.dataTypeID]));
      const rows = result.rows
        .slice(0, rowLimit)
        .map((row) =>
          Object.fromEntries(
            Object.entries(row).map(([key, value]) => [key, jsonValue(value, types.get(key) ?? 0)]),
          ),
        );
      return {
        columns: result.fields.map((f) => ({ name: f.name })),
        rows,
        truncated: result.rows.length > rowLimit,
      };
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }

  /**
   * The embedded database ignores statement_timeout: when the statement is still running at its
   * deadline, the database thread is interrupted and the statement fails like a cancelled one (57014).
   */
  private async queryWithDeadline(
    tenantId: string,
    client: PoolClient,
    text: string,
    values: unknown[],
    timeoutMs: number,
  ): Promise<QueryResult<Record<string, unknown>>> {
    if (this.database.backend !== 'embedded') return client.query({ text, values });
    let restarted: Promise<unknown> | undefined;
    const timer = setTimeout(() => {
      this.recordInterrupt(tenantId);
      restarted = this.database
        .interruptRunaway(`an sql tool query ran past its ${timeoutMs} ms timeout`)
        .catch(() => undefined);
    }, timeoutMs);
    try {
      return await client.query({ text, values });
    } catch (error) {
      if (!restarted) throw error;
      // The restart stalls every tenant: it is this query's time too (charged to the tenant's budget).
      await restarted;
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    } finally {
      clearTimeout(timer);
    }
  }

  /** The in-process record is enough: the embedded database serves exactly one process (its lock file). */
  private recordInterrupt(tenantId: string): void {
    this.interrupts.set(tenantId, [...this.interruptsInLastHour(tenantId), Date.now()]);
  }

  private refuseWhileSuspended(tenantId: string): void {
    if (this.database.backend !== 'embedded' || this.interruptsPerHour === 0) return;
    const times = this.interruptsInLastHour(tenantId);
    if (times.length < this.interruptsPerHour) return;
    const oldestThatCounts = times[times.length - this.interruptsPerHour];
    const retryAfterMs = oldestThatCounts + 3_600_000 - Date.now();
    throw new SqlToolSuspendedError(times.length, Math.max(1, Math.ceil(retryAfterMs / 1000)));
  }

  /** The tenant's interrupts of the last hour; older ones are forgotten (a tenant with none, too). */
  private interruptsInLastHour(tenantId: string): number[] {
    const hourAgo = Date.now() - 3_600_000;
    const times = (this.interrupts.get(tenantId) ?? []).filter((t) => t > hourAgo);
    if (times.length) this.interrupts.set(tenantId, times);
    else this.interrupts.delete(tenantId);
    return times;
  }
}
