import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { emptyToUndefined, toBoolean, toNumber } from './config-schema';

export const APP_ROLES = ['all', 'api', 'worker'] as const;
export type AppRoleName = (typeof APP_ROLES)[number];

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/**
 * Every environment variable the service reads. Defaults are the embedded, zero-setup values;
 * `.env.example` documents each key.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevelName = 'info';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /**
   * The owner role that runs migrations (native). The application itself connects with DATABASE_URL,
   * which should be a role that is neither owner, superuser nor BYPASSRLS (row-level security).
   * Defaults to DATABASE_URL.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_MIGRATION_URL?: string;

  /**
   * The BYPASSRLS role cross-tenant system work (`runAsSystem`) logs in as, on a pool of its own that
   * request work never uses (native). Default: DATABASE_URL with the user ops_system when DATABASE_URL
   * logs in as ops_app, else DATABASE_URL itself.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_SYSTEM_URL?: string;

  /**
   * The role the sql tool's queries log in as (native), on a pool of its own. Default: DATABASE_URL with
   * the user ops_sql_tool when DATABASE_URL logs in as ops_app, else DATABASE_URL itself (the queries
   * then switch to ops_sql_tool with SET LOCAL ROLE).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_SQL_TOOL_URL?: string;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DATABASE_STATEMENT_TIMEOUT_MS = 30_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(toNumber)
  @IsInt()
  @Min(10)
  REDIS_COMMAND_TIMEOUT_MS = 500;

  /**
   * After a Redis command timed out or lost its connection, Redis is skipped (reads miss, writes are
   * dropped) this long, then probed in the background: a request pays at most one command timeout.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(50)
  @Max(600_000)
  REDIS_CIRCUIT_COOLDOWN_MS = 2000;

  @IsString()
  CACHE_KEY_PREFIX = 'ops:';

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CACHE_MAX_ENTRIES = 10_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(24, { message: 'must be at least 24 characters' })
  ADMIN_API_KEY?: string;

  @Transform(toBoolean)
  @IsBoolean()
  WRITE_ADMIN_KEY_FILE = true;

  @IsString()
  BODY_LIMIT = '10mb';

  /** Comma-separated browser origins allowed to call the API (`*` for any); unset: no CORS headers. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  // Tenant secrets: the server key sealing them (32 bytes as 64 hex digits or base64; unset: generated
  // into DATA_DIR/secrets-key on the embedded backend, secrets refused with DATABASE_URL), and the
  // environment variables each tenant's tools may reference (`tenant:OPS_SECRET_A,OPS_SECRET_B;other:...`,
  // tenant by slug or id, `*` for every tenant).
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)\s*$/, {
    message: 'must be 32 bytes as 64 hex digits or base64',
  })
  SECRETS_KEY?: string;

  @IsString()
  @Matches(/^\s*([^:;\s]+\s*:\s*[A-Z0-9_]+(\s*,\s*[A-Z0-9_]+)*\s*(;\s*|$))*$/, {
    message: 'must be tenant:NAME[,NAME][;tenant:NAME...]',
  })
  SECRET_ENV_GRANTS = '';

  /**
   * sql tool queries at once per process; absent: half of DATABASE_POOL_SIZE, so search keeps
   * connections (embedded: 1, the database runs one statement at a time).
   */
  @Transform(toNumber)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200)
  SQL_TOOL_MAX_CONCURRENT?: number;

  // ---------------------------------------------------------------------------------------------
  // Topology (several processes on one PostgreSQL and Redis, see docs/notes/topology.md)
  // ---------------------------------------------------------------------------------------------

  /**
   * What this process does: `all` (HTTP, job worker and schedulers: the embedded quick start), `api`
   * (HTTP only: never claims jobs nor runs schedulers) or `worker` (jobs and schedulers, HTTP for
   * health only). `npm run worker` starts a worker.
   */
  @IsIn(APP_ROLES)
  APP_ROLE: AppRoleName = 'all';

  /**
   * Every process re-reads the per-tenant change generations this often and reloads a tenant whose
   * generation moved: the bound on serving stale tools/assets when a change-bus message was lost.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(300)
  CHANGE_POLL_SECONDS = 5;

  /**
   * The Redis change bus publishes a heartbeat to itself this often; one not received within the
   * same time makes `/health/ready` report the bus degraded (a frozen Redis keeps its connections open).
   */
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(60_000)
  CHANGE_BUS_HEARTBEAT_MS = 2000;

  /** Requests one API key may make per RATE_LIMIT_WINDOW_SECONDS, across every replica (0: no limit). */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_KEY = 1200;

  /** Requests all keys of one tenant together may make per RATE_LIMIT_WINDOW_SECONDS, across every replica (0: no limit). */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_TENANT = 6000;

  /** Active (unrevoked, unexpired) API keys one tenant may hold; creating one more is refused (409). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  API_KEYS_MAX_PER_TENANT = 100;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(3600)
  RATE_LIMIT_WINDOW_SECONDS = 60;
}
