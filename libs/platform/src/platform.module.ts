import { DynamicModule, Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiKeyEntity } from './auth/api-key.entity';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthRepository } from './auth/auth.repository';
import { AuthService } from './auth/auth.service';
import { TenantEntity } from './auth/tenant.entity';
import { CacheModule } from './cache/cache.module';
import { CacheStore } from './cache/cache-store';
import { ConfigCoreModule } from './config/config-core.module';
import type { ConfigSchema } from './config/config-schema';
import { DatabaseInfo, DatabaseModule } from './database/database.module';
import { ClusterLock } from './cluster/cluster-lock';
import { ProcessRole } from './cluster/process-role';
import { EventBus } from './events/app-events';
import { ChangeBus, LocalChangeBus, PostgresChangeBus, RedisChangeBus } from './events/change-bus';
import { ChangeGenerationsRepository } from './events/change-generations.repository';
import { ChangePropagation } from './events/change-propagation.service';
import { PlatformConfig } from './platform.config';
import { HealthRegistry } from './health/health-registry';
import { SecretsKeyring } from './secrets/secrets-keyring';
import { TenantSecretsRepository } from './secrets/tenant-secrets.repository';
import { TenantSecretsService } from './secrets/tenant-secrets.service';

@Injectable()
class PlatformHealthChecks implements OnModuleInit {
  constructor(
    private readonly registry: HealthRegistry,
    private readonly database: DatabaseInfo,
    private readonly cache: CacheStore,
    private readonly bus: ChangeBus,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      'database',
      async () => {
        const probe = await this.database.readiness();
        return {
          status: probe.ok ? 'ok' : 'down',
          backend: this.database.backend,
          latency_ms: probe.latencyMs,
          ...(probe.lastOkMsAgo !== undefined ? { busy: true, last_ok_ms_ago: probe.lastOkMsAgo } : {}),
          error: probe.error,
        };
      },
      { critical: true },
    );
    this.registry.register(
      'cache',
      () => {
        const health = this.cache.health();
        return Promise.resolve({
          status: health.available ? 'ok' : 'degraded',
          backend: health.backend,
          error: health.lastError,
        });
      },
      { critical: false },
    );
    this.registry.register(
      'change_bus',
      () =>
        Promise.resolve({
          status: this.bus.connected() ? 'ok' : 'degraded',
          backend: this.bus.backend,
        }),
      { critical: false },
    );
  }
}

/** Redis pub/sub when Redis is configured, else LISTEN/NOTIFY on PostgreSQL, else none (embedded). */
export function createChangeBus(config: PlatformConfig, dataSource: DataSource): ChangeBus {
  const redisUrl = config.REDIS_URL;
  if (redisUrl)
    return new RedisChangeBus(
      redisUrl,
      config.CACHE_KEY_PREFIX,
      config.REDIS_COMMAND_TIMEOUT_MS,
      config.CHANGE_BUS_HEARTBEAT_MS,
    );
  const databaseUrl = config.DATABASE_URL;
  if (databaseUrl)
    return new PostgresChangeBus(databaseUrl, async (channel, payload) => {
      await dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]);
    });
  return new LocalChangeBus();
}

export interface PlatformModuleOptions {
  /** Background schedulers (cron jobs); off for one-shot CLI commands. */
  schedulers?: boolean;
  /**
   * Every lib's config class, validated together with the platform's at boot (one error lists every bad
   * key); a lib's module registers its own class (ConfigFeatureModule) whether listed here or not.
   */
  configSchemas?: readonly ConfigSchema[];
}

/**
 * Config, database, cache, auth, request context, errors and health: the parts every other module
 * builds on. Global, so libraries inject PlatformConfig, DataSource, CacheStore and AuthService directly.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions = {}): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigCoreModule.forRoot(options.configSchemas),
        DatabaseModule,
        CacheModule,
        TypeOrmModule.forFeature([TenantEntity, ApiKeyEntity]),
        EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false }),
        ...(options.schedulers === false ? [] : [ScheduleModule.forRoot()]),
      ],
      providers: [
        AuthRepository,
        AuthService,
        ApiKeyGuard,
        HealthRegistry,
        PlatformHealthChecks,
        EventBus,
        { provide: ChangeBus, inject: [PlatformConfig, getDataSourceToken()], useFactory: createChangeBus },
        ChangeGenerationsRepository,
        ChangePropagation,
        ProcessRole,
        ClusterLock,
        SecretsKeyring,
        TenantSecretsRepository,
        TenantSecretsService,
      ],
      exports: [
        AuthService,
        TenantSecretsService,
        ApiKeyGuard,
        HealthRegistry,
        EventBus,
        ChangePropagation,
        ProcessRole,
        ClusterLock,
        DatabaseModule,
        CacheModule,
        TypeOrmModule,
      ],
    };
  }
}
