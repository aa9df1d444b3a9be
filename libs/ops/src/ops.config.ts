import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigDoc, toNumber } from '@app/platform/config';

/** The ops lib's keys: the demo dataset and the sql tools' limits. */
export class OpsConfig {
  @ConfigDoc(
    '`auto`: load the demo dataset into tenant `default` on the first start of the embedded default (not under `NODE_ENV=test`); `on`, `off`',
  )
  @IsIn(['auto', 'off', 'on'])
  DEMO_DATA: 'auto' | 'off' | 'on' = 'auto';

  @ConfigDoc('`full` (~325 items, 30 days of metrics) or `small` (~80 items, faster)')
  @IsIn(['full', 'small'])
  DEMO_DATA_SCALE: 'full' | 'small' = 'full';

  /**
   * Embedded only: stopping a runaway sql tool query restarts the database thread, which stalls every
   * tenant for that moment. A tenant whose sql tools forced this many restarts in the last hour gets
   * its sql tools refused (429 TOOLS_BUSY) until the oldest is an hour old; 0 turns the limit off.
   */
  @ConfigDoc(
    "embedded only: stopping a runaway sql tool query restarts the database thread (a stall for every tenant); after this many in an hour, that tenant's sql tools answer 429 `TOOLS_BUSY` with `Retry-After` until the oldest is an hour old (`0`: no limit)",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(1000)
  EMBEDDED_SQL_INTERRUPTS_PER_HOUR = 3;

  /**
   * Rows an sql tool query may make at any level of its FROM/WHERE (each join's rows, each scan's rows,
   * again in every rescan), counted by the executor while it runs; the next row fails the query.
   * Absent: 1,000,000 native, 200,000 embedded (slower, and one statement at a time for every tenant).
   */
  @ConfigDoc(
    "rows an sql tool query may make at any level of its FROM/WHERE (each join's and scan's rows, again in every rescan), counted by the executor while it runs; the next row stops the query (`QUERY_TOO_EXPENSIVE`, `max_rows_examined`)",
    '`1000000` (embedded: `200000`)',
  )
  @Transform(toNumber)
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(1_000_000_000)
  SQL_TOOL_MAX_ROWS_EXAMINED?: number;

  /**
   * Embedded only: seconds of database time a tenant's sql tools may use per hour, every query counted
   * (the embedded database runs one statement at a time, so that time is every tenant's wait). Refills
   * continuously; at most EMBEDDED_SQL_MAX_TIMEOUT_MS can be spent ahead. 0 turns the budget off.
   */
  @ConfigDoc(
    "embedded only: database time a tenant's sql tools may use per hour, every query's duration counted (an interrupt's restart too); refills continuously, at most `EMBEDDED_SQL_MAX_TIMEOUT_MS` ahead; once spent, 429 `RATE_LIMITED` with `retry_after_seconds` (`0`: no budget)",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(3600)
  EMBEDDED_SQL_SECONDS_PER_HOUR = 30;

  /**
   * sql tool queries one tenant may run at once (across replicas with REDIS_URL, per process without).
   * A query over the cap waits up to TOOL_QUEUE_WAIT_MS (never past its own timeout) for the tenant's
   * running query, then is refused (429 RATE_LIMITED with retry_after_seconds).
   */
  @ConfigDoc(
    "sql tool queries one tenant may run at once (across all replicas with `REDIS_URL`, per process without); a query over it waits up to `TOOL_QUEUE_WAIT_MS` (never past its own timeout) for the tenant's running one, then 429 `RATE_LIMITED` with `retry_after_seconds` and `max_concurrent_per_tenant`. Applies to `query_sql` query tools too, and to a plan's parallel steps: two sql tool steps of one run take turns",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100)
  SQL_TOOL_MAX_CONCURRENT_PER_TENANT = 1;

  /**
   * Native only: seconds of database time a tenant's sql tools may use per hour, every query's duration
   * counted (per process). Refills continuously; at most one maximum timeout (60 s) can be spent ahead.
   * 0 turns the budget off. Embedded has its own, EMBEDDED_SQL_SECONDS_PER_HOUR.
   */
  @ConfigDoc(
    "native only: database time a tenant's sql tools may use per hour, every query's duration counted; refills continuously, at most 60 s (the longest `timeout_ms`) ahead; once spent, 429 `RATE_LIMITED` with `retry_after_seconds` (`0`: no budget). Counted per process: with N replicas a tenant may use up to N times this",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(3600)
  SQL_TOOL_SECONDS_PER_HOUR = 600;

  @ConfigDoc(
    'embedded only: the longest an sql tool query runs, whatever its `timeout_ms` (native: up to 60000)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(60_000)
  EMBEDDED_SQL_MAX_TIMEOUT_MS = 2000;
}
