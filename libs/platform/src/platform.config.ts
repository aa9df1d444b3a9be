import path from 'node:path';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { ConfigDoc, emptyToUndefined, toBoolean, toNumber } from './config/config-schema';

/*
 * `@app/platform/config`: the light entry of the configuration (no Nest, no database): the helpers every
 * lib's config class is built with, and the platform's own keys. A server's main() validates the whole
 * environment with them before it loads the application's modules.
 */
export {
  ConfigDoc,
  configKeys,
  describeConfig,
  emptyToUndefined,
  HOST_LIST_MESSAGE,
  HOST_LIST_PATTERN,
  InvalidEnvironmentError,
  optionalNumber,
  readConfig,
  toBoolean,
  toNumber,
  validateConfigs,
  type ConfigKeyDescription,
  type ConfigSchema,
} from './config/config-schema';

export const APP_ROLES = ['all', 'api', 'worker'] as const;
export type AppRoleName = (typeof APP_ROLES)[number];

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/**
 * The platform's keys, those every lib shares: the process (role, HTTP server, logs, data directory),
 * the database and its roles, Redis and the cache, auth and API keys, tenant secrets, the cluster's
 * change propagation and the request rate limits. Defaults are the embedded, zero-setup values.
 */
export class PlatformConfig {
  @ConfigDoc('`development`, `production` or `test`')
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @ConfigDoc('where the API listens (`PORT=0`: a free port the system picks, printed in the start banner)')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @ConfigDoc('the address the API listens on')
  @IsString()
  HOST = '0.0.0.0';

  @ConfigDoc('`debug`, `info`, `warn` or `error`: structured logs with `requestId` and `traceId`')
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevelName = 'info';

  @ConfigDoc('`json` (one object a line) or `pretty`')
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @ConfigDoc('embedded database, lock file, first-run admin key')
  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  @ConfigDoc('PostgreSQL with pgvector', 'unset (embedded)')
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /**
   * The owner role that runs migrations (native). The application itself connects with DATABASE_URL,
   * which should be a role that is neither owner, superuser nor BYPASSRLS (row-level security).
   * Defaults to DATABASE_URL.
   */
  @ConfigDoc(
    'the owner role that runs migrations (see [Production database roles](operations.md#production-database-roles))',
    '`DATABASE_URL`',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_MIGRATION_URL?: string;

  /**
   * The BYPASSRLS role cross-tenant system work (`runAsSystem`) logs in as, on a pool of its own that
   * request work never uses (native). Default: DATABASE_URL with the user ops_system when DATABASE_URL
   * logs in as ops_app, else DATABASE_URL itself.
   */
  @ConfigDoc(
    'the `BYPASSRLS` role of cross-tenant system work, on its own pool (half of `DATABASE_POOL_SIZE`, at least 2)',
    '`DATABASE_URL` as `ops_system` (when it logs in as `ops_app`; else `DATABASE_URL`)',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_SYSTEM_URL?: string;

  /**
   * The role the sql tool's queries log in as (native), on a pool of its own. Default: DATABASE_URL with
   * the user ops_sql_tool when DATABASE_URL logs in as ops_app, else DATABASE_URL itself (the queries
   * then switch to ops_sql_tool with SET LOCAL ROLE).
   */
  @ConfigDoc(
    "the role the sql tool's queries log in as, on its own pool (`SQL_TOOL_MAX_CONCURRENT`)",
    '`DATABASE_URL` as `ops_sql_tool` (when it logs in as `ops_app`; else `DATABASE_URL`)',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_SQL_TOOL_URL?: string;

  @ConfigDoc('connections per process')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @ConfigDoc('per-statement timeout on the native server (`0`: none)')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DATABASE_STATEMENT_TIMEOUT_MS = 30_000;

  @ConfigDoc('Redis; when down, requests run uncached', 'unset (in-process cache)')
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @ConfigDoc(
    'the most a slow or frozen Redis can cost a request: the first command that times out opens a circuit breaker, and Redis is skipped (reads miss, writes are dropped, rate limits count per process) until a background probe answers',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(10)
  REDIS_COMMAND_TIMEOUT_MS = 500;

  /**
   * After a Redis command timed out or lost its connection, Redis is skipped (reads miss, writes are
   * dropped) this long, then probed in the background: a request pays at most one command timeout.
   */
  @ConfigDoc(
    'how long Redis is skipped after a command timed out or lost its connection before the next probe (a `PING` no request waits for)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(50)
  @Max(600_000)
  REDIS_CIRCUIT_COOLDOWN_MS = 2000;

  @ConfigDoc("prefix of the service's Redis keys")
  @IsString()
  CACHE_KEY_PREFIX = 'ops:';

  @ConfigDoc('entries kept by the in-process cache')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  CACHE_MAX_ENTRIES = 10_000;

  @ConfigDoc(
    'the first system admin key, for automated deployments (at least 24 characters)',
    'unset (generated)',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(24, { message: 'must be at least 24 characters' })
  ADMIN_API_KEY?: string;

  @ConfigDoc(
    'a first start without `ADMIN_API_KEY` writes the generated admin key to `DATA_DIR/admin-key`; `false` with no `ADMIN_API_KEY` refuses to start',
  )
  @Transform(toBoolean)
  @IsBoolean()
  WRITE_ADMIN_KEY_FILE = true;

  @ConfigDoc('largest accepted JSON or form body')
  @IsString()
  BODY_LIMIT = '10mb';

  @ConfigDoc('browser origins allowed to call the API, comma-separated (`*` for any)', 'unset (no CORS)')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  CORS_ORIGINS?: string;

  // Tenant secrets: the server key sealing them (32 bytes as 64 hex digits or base64; unset: generated
  // into DATA_DIR/secrets-key on the embedded backend, secrets refused with DATABASE_URL), and the
  // environment variables each tenant's tools may reference (`tenant:OPS_SECRET_A,OPS_SECRET_B;other:...`,
  // tenant by slug or id, `*` for every tenant).
  @ConfigDoc(
    '32 bytes (hex or base64) encrypting tenant secrets; required to store secrets with `DATABASE_URL`',
    'unset (embedded: generated into `DATA_DIR/secrets-key`)',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)\s*$/, {
    message: 'must be 32 bytes as 64 hex digits or base64',
  })
  SECRETS_KEY?: string;

  @ConfigDoc(
    "which server `env:OPS_SECRET_*` secrets a tenant's tools may use: `acme:OPS_SECRET_A,OPS_SECRET_B;other:OPS_SECRET_C` (`*` for every tenant)",
    'unset (none)',
  )
  @IsString()
  @Matches(/^\s*([^:;\s]+\s*:\s*[A-Z0-9_]+(\s*,\s*[A-Z0-9_]+)*\s*(;\s*|$))*$/, {
    message: 'must be tenant:NAME[,NAME][;tenant:NAME...]',
  })
  SECRET_ENV_GRANTS = '';

  /**
   * sql tool queries at once per process; absent: half of DATABASE_POOL_SIZE, so search keeps
   * connections (embedded: 1, the database runs one statement at a time).
   */
  @ConfigDoc(
    "sql tool queries at once per process, the size of the sql tool's pool (the rest of the pool stays for search; embedded runs one statement at a time, so a second query waits outside the database, uncharged)",
    'half of `DATABASE_POOL_SIZE` (embedded: `1`)',
  )
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
  @ConfigDoc(
    '`all`: HTTP, job workers and schedulers (the quick start); `api`: HTTP only (never claims jobs, never runs schedulers); `worker`: jobs and schedulers, HTTP for `/health/*` only. `npm run worker` starts a worker',
  )
  @IsIn(APP_ROLES)
  APP_ROLE: AppRoleName = 'all';

  /**
   * Every process re-reads the per-tenant change generations this often and reloads a tenant whose
   * generation moved: the bound on serving stale tools/assets when a change-bus message was lost.
   */
  @ConfigDoc(
    'every process re-reads the per-tenant change generations this often: the bound on serving a stale tool or asset when a change-bus message was lost',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(300)
  CHANGE_POLL_SECONDS = 5;

  /**
   * The Redis change bus publishes a heartbeat to itself this often; one not received within the
   * same time makes `/health/ready` report the bus degraded (a frozen Redis keeps its connections open).
   */
  @ConfigDoc(
    'the Redis change bus sends itself a heartbeat this often; one not delivered within this time makes `/health/ready` report `change_bus` `degraded` until one is',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(60_000)
  CHANGE_BUS_HEARTBEAT_MS = 2000;

  @ConfigDoc(
    'requests per API key per window, across all replicas with Redis (`0`: no limit); over it `429 RATE_LIMITED` with `Retry-After`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_KEY = 1200;

  @ConfigDoc(
    'requests of all keys of one tenant together per window, across all replicas with Redis (`0`: no limit); over it `429 RATE_LIMITED` with `Retry-After`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_TENANT = 6000;

  @ConfigDoc(
    'active (unrevoked, unexpired) API keys per tenant; creating one more is `409 API_KEY_LIMIT_REACHED` (also for the system admin and the CLI)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100_000)
  API_KEYS_MAX_PER_TENANT = 100;

  @ConfigDoc('the window of `RATE_LIMIT_PER_KEY` and `RATE_LIMIT_PER_TENANT`')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(3600)
  RATE_LIMIT_WINDOW_SECONDS = 60;

  /** DATA_DIR as an absolute path. */
  get dataDir(): string {
    return path.resolve(this.DATA_DIR);
  }
}
