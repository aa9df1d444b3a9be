import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';
import { emptyToUndefined, optionalNumber, toBoolean, toNumber } from './config-schema';

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

  // Agents (libs/planner): the tool-calling agent (/internal/v1/llm/execute) and the RAG chat (/api/chat)
  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  AGENT_TIMEOUT_MS = 120_000;

  @Transform(toNumber)
  @IsInt()
  @Min(500)
  AGENT_TOOL_RESULT_CHARS = 8000;

  /**
   * A run left `resuming` this long (the process continuing it died) is taken over: continued by the
   * scheduler of another process (or failed after AGENT_RESUME_MAX_ATTEMPTS). Keep it above AGENT_TIMEOUT_MS.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_LEASE_SECONDS = 600;

  /** How often the scheduler looks for runs stuck in `resuming`. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_CHECK_SECONDS = 60;

  /** Takeovers of one run before it is marked failed. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  AGENT_RESUME_MAX_ATTEMPTS = 3;

  /** One attempt to deliver a run webhook (`callback_url`): connect, send, read the answer. */
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** Attempts of one webhook delivery (the first included) before it is marked failed. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  WEBHOOK_MAX_ATTEMPTS = 8;

  /** Wait before the second attempt; it doubles each attempt (capped at an hour): 30 s, 1 min, 2 min ... */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_BASE_SECONDS = 30;

  /** How often the scheduler looks for webhook deliveries due (a retry, or one a dead process left). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  WEBHOOK_RETRY_CHECK_SECONDS = 5;

  /** Base URL of the blog backend the blog tool assets call (`npm run cli -- agents publish-blog-tools`). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/, { message: 'must be an http(s) base URL without query' })
  BLOG_API_BASE_URL?: string;

  /** SearxNG-compatible JSON search endpoint (`?q=...&format=json`); unset: the chat never searches the web. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  WEB_SEARCH_URL?: string;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  CHAT_HISTORY_TURNS = 10;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(10)
  CHAT_MAX_TOOL_CALLS = 3;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(20)
  CHAT_TOP_K = 3;

  /**
   * Relevance floor for the chat's document passages: a hit whose vector-branch cosine similarity is below it is
   * not cited (dropped before the grader). Calibrated with `npm run eval:retrieval -- --calibrate-floor` (see
   * BENCHMARKS.md); 0 turns the floor off.
   */
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  CHAT_MIN_RELEVANCE = 0.08;

  /**
   * Keyword evidence for the chat's relevance floor: a passage whose keyword score (BM25 as a share of the whole
   * question's best, terms missing from the corpus included) reaches this is cited whatever its vector similarity.
   * Calibrated with `npm run eval:retrieval -- --calibrate-floor` (BENCHMARKS.md); 0 turns keyword evidence off.
   */
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  CHAT_MIN_KEYWORD_RELEVANCE = 0.15;

  /** First backoff delay of search retries in the chat; doubles per retry (1 s, 2 s). */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  CHAT_RETRY_BASE_DELAY_MS = 1000;

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

  /**
   * Retries of each chat component (the seed's error matrix: router 2, agent 2, grader 1, rewriter 1,
   * search 1-2). The model steps default to LLM_MAX_RETRIES when unset; CHAT_ANSWER_RETRIES covers the
   * search agent's, the answer's and the chitchat's model calls. Search retries back off from
   * CHAT_RETRY_BASE_DELAY_MS.
   */
  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_ROUTER_RETRIES?: number;

  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_GRADER_RETRIES?: number;

  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_REWRITER_RETRIES?: number;

  @Transform(optionalNumber)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_ANSWER_RETRIES?: number;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10)
  CHAT_SEARCH_RETRIES = 2;

  /**
   * What the chat does when its search tool fails after its retries: `report` answers that it could not
   * search (no model call); `answer_without_tools` (the seed's rule) lets the model answer without search
   * results, saying the search was unavailable (the report is still used when no model is configured).
   */
  @IsIn(['report', 'answer_without_tools'])
  CHAT_ON_SEARCH_ERROR: 'report' | 'answer_without_tools' = 'report';

  /**
   * The chat's internal search and web search through MCP tools (the seed's `vector-search` and
   * `web-search` servers): the registry name `<server>__<tool>` of a read-only tool of a server in
   * MCP_SERVERS. Unset: the document search of this service, and WEB_SEARCH_URL.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/, { message: 'must be an MCP tool name <server>__<tool>' })
  CHAT_INTERNAL_SEARCH_MCP_TOOL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/, { message: 'must be an MCP tool name <server>__<tool>' })
  CHAT_WEB_SEARCH_MCP_TOOL?: string;
}
