export { PlatformModule, type PlatformModuleOptions } from './platform.module';
export { ProcessRole } from './cluster/process-role';
export { ClusterLock, advisoryKeyOf, type ClusterRunOptions } from './cluster/cluster-lock';
export { LeasedJobRunner, type LeasedJob } from './cluster/leased-job-runner';
export { JobQueue, type JobEnd, type JobQueueTable, type QueuedJobRow } from './jobs/job-queue.repository';
export {
  exceededQueueLimit,
  failedAttemptOutcome,
  retryDelaySeconds,
  tenantTurnOrder,
  type JobError,
  type QueueLimitExceeded,
  type QueuedWorkCheck,
  type RetryPolicy,
  type TenantTurn,
} from './jobs/job-queue.util';
export { PeriodicSweep } from './cluster/periodic-sweep';
export {
  ChangeBus,
  CLUSTER_EVENTS,
  LocalChangeBus,
  PostgresChangeBus,
  RedisChangeBus,
  type ChangeMessage,
} from './events/change-bus';
export { ChangePropagation } from './events/change-propagation.service';
export * from './platform.config';
export { ConfigFeatureModule } from './config/config-feature.module';
export {
  CacheStore,
  type CacheBackend,
  type CacheHealth,
  type VersionedKey,
  type VersionedRead,
  type WindowCount,
  type LeaseRequest,
  type LeaseGrant,
} from './cache/cache-store';
export { ClusterLimits, type HeldSlot, type SlotGrant, type SlotRequest } from './cache/cluster-limits';
export { MemoryCacheStore } from './cache/memory-cache.store';
export { RedisCacheStore, type RedisCacheOptions } from './cache/redis-cache.store';
export { RedisCircuitBreaker, type RedisCircuitState } from './cache/redis-circuit-breaker';
export { ioredis, REDIS_DISCONNECT_TIMEOUT_MS } from './cache/ioredis-module';
export { DatabaseInfo } from './database/database.module';
export { buildDataSourceOptions, type DatabaseBackend } from './database/data-source-options';
export {
  prepareDatabase,
  ensureVectorExtension,
  runMigrationsLocked,
  type DatabasePreparation,
} from './database/database-preparation';
export { EmbeddedPostgres } from './database/embedded-postgres';
export {
  currentDatabaseScope,
  runAsSystem,
  runAsTenant,
  type DatabaseScope,
} from './database/database-scope';
export { applyConnectionScope, type ConnectionScopeOptions } from './database/connection-scope';
export {
  currentDatabasePriority,
  runInBackground,
  runInForeground,
  beginRequest,
  type DatabasePriority,
} from './database/database-priority';
export {
  BACKGROUND_STATEMENT_TARGET_MS,
  BatchSizer,
  forEachBatch,
  type BatchSizerOptions,
} from './database/batch-sizer';
export {
  EmbeddedScheduler,
  schedulerOf,
  DEFAULT_EMBEDDED_SCHEDULER_OPTIONS,
  type EmbeddedSchedulerOptions,
  type EmbeddedSchedulerStats,
} from './database/embedded-scheduler';
export { SqlToolDatabase } from './database/sql-tool-database';
export { APP_ROLE, SQL_TOOL_ROLE, SYSTEM_ROLE } from '@app/migrations';
export { SnakeNamingStrategy } from './database/snake-naming.strategy';
export {
  AuthService,
  DEFAULT_TENANT_SLUG,
  type ApiKeyView,
  type TenantView,
  type CreateKeyInput,
} from './auth/auth.service';
export { TenantEntity } from './auth/tenant.entity';
export { ApiKeyGuard, extractApiKey } from './auth/api-key.guard';
export { maskedKey } from './auth/api-key.util';
export { Public, RequireRole, SystemAdminOnly, CurrentPrincipal } from './auth/auth.decorators';
export {
  ROLES,
  TOOL_RUNNER_ROLES,
  roleSatisfies,
  roleSatisfiesAny,
  type Role,
  type Principal,
} from './auth/principal';
export { RequestContext, type RequestContextState } from './context/request-context';
export { AppException, ErrorKind, PlatformException, PlatformExceptionCode } from './errors/app.exception';
export { JsonLogger, type JsonLoggerOptions } from './logging/json-logger';
export {
  HealthRegistry,
  type DependencyHealth,
  type DependencyStatus,
  type HealthViewer,
  type ReadinessReport,
} from './health/health-registry';
export {
  APP_EVENTS,
  EventBus,
  type ChangeDomain,
  type TenantResyncEvent,
  type AppEventMap,
  type AppEventName,
  type AssetLifecycleEvent,
  type DocumentsChangedEvent,
} from './events/app-events';
export { blockedAddressReason, parseIpv6, type BlockedReason } from './egress/address-policy.util';
export {
  EgressPolicy,
  EgressRefusedError,
  defaultPort,
  systemResolver,
  vetHost,
  type AddressResolver,
  type VettedAddress,
} from './egress/egress-policy';
export {
  SECRET_NAME,
  SECRET_REFERENCE,
  SECRET_VALUE_MAX_CHARS,
  TenantSecretsService,
  type TenantSecretView,
} from './secrets/tenant-secrets.service';
export { SECRETS_KEY_FILE } from './secrets/secrets-keyring';
export { MAX_JSON_DEPTH, MAX_PAGE_OFFSET, PG_INT_MAX } from './validation/input-limits';
export { jsonNestingDepth, payloadTooDeep, verifyJsonDepth } from './validation/json-depth';
export { assertSafeStrings, findUnsafeStrings, type UnsafeStringField } from './validation/unsafe-strings';
export { ParseBoundedIntPipe } from './validation/bounded-int.pipe';
export {
  invalidDataMessage,
  isDatabaseUnavailable,
  READ_RETRY_DELAY_MS,
  retryReadOnce,
  sqlState,
} from './database/database-errors';
export { IDEMPOTENT_READ, IdempotentRead } from './database/idempotent-read.decorator';
export { abortableSleep, retry, type RetryOptions } from './util/retry.util';
export { startOfUtcDay, startOfUtcMonth, startOfUtcWeek } from './util/calendar.util';
export {
  RUN_EVENT_NAMES,
  RunCancelledError,
  type RunEventName,
  type RunEventSink,
  type RunObserver,
  type RunProgressEventName,
} from './streaming/run-events';
export { EVENT_STREAM, formatEvent, streamRun, wantsEventStream } from './streaming/event-stream';
