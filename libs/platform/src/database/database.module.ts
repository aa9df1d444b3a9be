import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { APP_ROLE, SQL_TOOL_ROLE, SYSTEM_ROLE } from '@app/migrations';
import { PlatformConfig } from '../platform.config';
import { buildDataSourceOptions, DatabaseBackend } from './data-source-options';
import { DatabasePreparation, prepareDatabase } from './database-preparation';
import { EmbeddedPostgres, embeddedMaxConnections } from './embedded-postgres';
import { EmbeddedScheduler, EmbeddedSchedulerStats, schedulerOf } from './embedded-scheduler';
import { openSqlToolDatabase, roleUrl, SqlToolDatabase } from './sql-tool-database';

export const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

/** How long readiness waits for its probe before answering from the last one that succeeded. */
export const READY_PROBE_WAIT_MS = 500;
/** A successful probe older than this no longer vouches for the database. */
export const READY_PROBE_STALE_MS = 30_000;

export interface DatabaseReadiness {
  ok: boolean;
  /** The probe's round trip, or null while it waits behind other work (answered from an earlier one). */
  latencyMs: number | null;
  /** Milliseconds since a probe last succeeded, when the answer relies on it. */
  lastOkMsAgo?: number;
  error?: string;
}

/** Which backend this process runs on, and its health. */
@Injectable()
export class DatabaseInfo {
  private lastOkAt: number | undefined;
  private probing: Promise<{ ok: boolean; latencyMs: number; error?: string }> | undefined;

  constructor(
    readonly backend: DatabaseBackend,
    private readonly dataSource: DataSource,
    private readonly embedded: EmbeddedPostgres | null = null,
  ) {}

  /**
   * Ends a statement that ran past its deadline. The native server enforces statement_timeout itself
   * (false: nothing to do); the embedded one cannot cancel a statement, so its thread is restarted.
   */
  async interruptRunaway(reason: string): Promise<boolean> {
    if (!this.embedded) return false;
    await this.embedded.interrupt(reason);
    return true;
  }

  /**
   * Readiness that does not queue behind the database's work. The embedded database runs one
   * statement at a time and holds every other connection while a transaction is open, so a probe
   * can wait seconds behind a large ingestion's write although the database is fine. One probe runs
   * at a time (probes arriving meanwhile share it, so a load balancer polling a busy instance does
   * not pile them into the pool); when it has not answered within `waitMs`, a probe that succeeded
   * within `staleMs` vouches for the database and the pending one finishes in the background.
   */
  async readiness(waitMs = READY_PROBE_WAIT_MS, staleMs = READY_PROBE_STALE_MS): Promise<DatabaseReadiness> {
    const probe = (this.probing ??= this.ping().finally(() => {
      this.probing = undefined;
    }));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    const answered = await Promise.race([probe, waited]).finally(() => clearTimeout(timer));
    if (answered) return answered;
    const sinceOk = this.lastOkAt === undefined ? Infinity : Date.now() - this.lastOkAt;
    if (sinceOk <= staleMs) return { ok: true, latencyMs: null, lastOkMsAgo: Math.round(sinceOk) };
    return probe;
  }

  /**
   * Embedded: how the one connection was shared (leases granted to foreground and background work,
   * and who is waiting now); native: null (the server interleaves connections itself).
   */
  schedulerStats(): EmbeddedSchedulerStats | null {
    return schedulerOf(this.dataSource)?.stats ?? null;
  }

  async ping(): Promise<{ ok: boolean; latencyMs: number; error?: string }> {
    const started = performance.now();
    try {
      await this.dataSource.query('SELECT 1');
      this.lastOkAt = Date.now();
      return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch (error) {
      return {
        ok: false,
        latencyMs: Math.round(performance.now() - started),
        error: (error as Error).message,
      };
    }
  }
}

/** Closes the pools before the embedded server they talk to goes away. */
@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    private readonly sqlTool: SqlToolDatabase,
    @Optional() @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sqlTool.close();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    if (this.embedded) {
      await this.embedded.stop();
      this.logger.log('embedded PostgreSQL stopped');
    }
  }
}

@Global()
@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [PlatformConfig],
      // The server's main() may have started it already (EmbeddedPostgres.startEarly): it is taken over.
      useFactory: (config: PlatformConfig): EmbeddedPostgres | null =>
        config.DATABASE_URL
          ? null
          : EmbeddedPostgres.forDataDir(config.dataDir, embeddedMaxConnections(config.DATABASE_POOL_SIZE)),
    },
  ],
  exports: [EMBEDDED_POSTGRES],
})
class EmbeddedPostgresModule {}

@Global()
@Module({
  imports: [
    EmbeddedPostgresModule,
    TypeOrmModule.forRootAsync({
      imports: [EmbeddedPostgresModule],
      inject: [PlatformConfig, EMBEDDED_POSTGRES],
      useFactory: async (config: PlatformConfig, embedded: EmbeddedPostgres | null) => {
        const connection = embedded ? await embedded.start() : undefined;
        const settings = {
          databaseUrl: config.DATABASE_URL,
          embedded: connection,
          poolSize: config.DATABASE_POOL_SIZE,
          statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        };
        const preparation: DatabasePreparation = {
          // Migrations run as the owner on a pool of their own; the application's pool never can.
          migration: buildDataSourceOptions({
            ...settings,
            databaseUrl: config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL,
            poolSize: 1,
            statementTimeoutMs: 0,
            applicationName: 'ops-api-migrate',
          }),
          // Native: system work on a pool of its own, logged in as the BYPASSRLS role.
          system: embedded
            ? undefined
            : buildDataSourceOptions({
                ...settings,
                databaseUrl: config.DATABASE_SYSTEM_URL ?? roleUrl(config.DATABASE_URL, SYSTEM_ROLE),
                poolSize: Math.max(2, Math.ceil(settings.poolSize / 2)),
                applicationName: 'ops-api-system',
              }),
          roles: embedded ? { app: APP_ROLE, system: SYSTEM_ROLE } : null,
          // Embedded: requests before background work on the one connection (EmbeddedScheduler).
          scheduler: embedded ? new EmbeddedScheduler() : null,
        };
        return { ...buildDataSourceOptions(settings), autoLoadEntities: true, retryAttempts: 0, preparation };
      },
      dataSourceFactory: async (options) => {
        const { preparation, ...dataSourceOptions } = options as DataSourceOptions & {
          preparation: DatabasePreparation;
        };
        return prepareDatabase(new DataSource(dataSourceOptions), preparation);
      },
    }),
  ],
  providers: [
    DatabaseLifecycle,
    {
      provide: SqlToolDatabase,
      inject: [PlatformConfig, DataSource],
      useFactory: (config: PlatformConfig, dataSource: DataSource) =>
        openSqlToolDatabase(
          dataSource,
          {
            databaseUrl: config.DATABASE_URL
              ? (config.DATABASE_SQL_TOOL_URL ?? roleUrl(config.DATABASE_URL, SQL_TOOL_ROLE))
              : undefined,
            poolSize:
              config.SQL_TOOL_MAX_CONCURRENT ?? Math.max(1, Math.floor(config.DATABASE_POOL_SIZE / 2)),
            statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
          },
          config.SQL_TOOL_MAX_CONCURRENT ?? 1,
        ),
    },
    {
      provide: DatabaseInfo,
      inject: [PlatformConfig, DataSource, EMBEDDED_POSTGRES],
      useFactory: (config: PlatformConfig, dataSource: DataSource, embedded: EmbeddedPostgres | null) =>
        new DatabaseInfo(config.DATABASE_URL ? 'native' : 'embedded', dataSource, embedded),
    },
  ],
  exports: [DatabaseInfo, SqlToolDatabase],
})
export class DatabaseModule {}
