import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, DataSourceOptions } from 'typeorm';
import { MigrationExecutor } from 'typeorm/migration/MigrationExecutor';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { applyConnectionScope } from './connection-scope';
import { runAsSystem } from './database-scope';
import type { EmbeddedScheduler } from './embedded-scheduler';

/** Arbitrary but fixed: every process migrating this database serialises on it. */
export const MIGRATION_LOCK_KEY = 7_316_402_911;

const logger = new Logger('Database');

/** pgvector must be available before any migration runs; say exactly what is missing when it is not. */
export async function ensureVectorExtension(dataSource: DataSource): Promise<string> {
  const installed: Array<{ extversion: string }> = await dataSource.query(
    `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
  );
  if (installed.length > 0) return installed[0].extversion;
  const available: unknown[] = await dataSource.query(
    `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
  );
  if (available.length === 0) {
    throw new PlatformException(
      PlatformExceptionCode.PGVECTOR_MISSING,
      ErrorKind.UNAVAILABLE,
      'The PostgreSQL server has no pgvector extension. Install it on the server (for example the ' +
        'pgvector/pgvector Docker image, or the postgresql-<major>-pgvector package) and restart.',
    );
  }
  try {
    await dataSource.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    throw new PlatformException(
      PlatformExceptionCode.PGVECTOR_MISSING,
      ErrorKind.UNAVAILABLE,
      `pgvector is installed on the server but could not be enabled in this database ` +
        `(${(error as Error).message}). Run "CREATE EXTENSION vector;" once as a superuser.`,
    );
  }
  const created: Array<{ extversion: string }> = await dataSource.query(
    `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
  );
  return created[0].extversion;
}

/** Marks the migrations table once every migration of a set is applied (its comment: this + the set's hash). */
const MIGRATIONS_MARK = 'ops-migrations:';

/** Hash of the names of the migrations the code knows, in order. */
export function migrationsHash(dataSource: DataSource): string {
  const names = dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name);
  return createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 32);
}

/**
 * Runs pending migrations while holding a session advisory lock, so concurrent boots migrate once.
 * Lock and migrations share one connection: the embedded pool has a single connection. A database whose
 * migrations table carries the hash of this code's migration set (written after they all ran) is
 * up to date: one query instead of the lock and TypeORM's checks.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const mark = `${MIGRATIONS_MARK}${migrationsHash(dataSource)}`;
  let locked = false;
  try {
    const [current] = (await runner.query(
      `SELECT obj_description(to_regclass('migrations'), 'pg_class') AS mark`,
    )) as Array<{ mark: string | null }>;
    if (current?.mark === mark) return [];
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    locked = true;
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    if (applied.length > 0) logger.log({ msg: 'migrations applied', migrations: applied.map((m) => m.name) });
    // Only the owner may comment; a database migrated by another role is checked in full each time.
    await runner
      .query(`COMMENT ON TABLE migrations IS '${mark}'`)
      .catch((error: Error) => logger.debug({ msg: 'could not mark the migrations', error: error.message }));
    return applied.map((m) => m.name);
  } finally {
    if (locked)
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}

/** How the application's own connections relate to the migrating owner (row-level security). */
export interface DatabasePreparation {
  /** Options of the owner connection that runs migrations; unset: the application's connection does. */
  migration?: DataSourceOptions;
  /**
   * Native: options of the system pool (`runAsSystem` work), whose role must bypass row-level security
   * (boot is refused otherwise); unset: the application's pool serves system work too.
   */
  system?: DataSourceOptions;
  /** Embedded: the roles each connection switches to per scope (PGlite has a single superuser). */
  roles?: { app: string; system: string } | null;
  /** Embedded: the order in which work gets the one connection (foreground before background). */
  scheduler?: EmbeddedScheduler | null;
}

/**
 * Migrates (as the owner, on a separate short-lived pool when `migration` is given), then opens the
 * application's pool (and the system pool) with the row-level-security scope applied to every
 * connection handed out. Destroying the returned data source closes the system pool too.
 */
export async function prepareDatabase(
  dataSource: DataSource,
  preparation: DatabasePreparation = {},
): Promise<DataSource> {
  const migrator = preparation.migration ? new DataSource(preparation.migration) : dataSource;
  const system = preparation.system ? new DataSource(preparation.system) : null;
  try {
    await runAsSystem('migrations', async () => {
      if (!migrator.isInitialized) await migrator.initialize();
      const version = await ensureVectorExtension(migrator);
      logger.log({ msg: 'pgvector available', version });
      await runMigrationsLocked(migrator);
    });
    if (migrator !== dataSource) await migrator.destroy();
    if (system) {
      await system.initialize();
      await refuseSystemRoleWithoutBypass(system);
    }
    if (!dataSource.isInitialized) {
      applyConnectionScope(dataSource, {
        system,
        roles: preparation.roles ?? null,
        scheduler: preparation.scheduler ?? null,
      });
      await dataSource.initialize();
      if (system) closeTogether(dataSource, system);
    }
    await warnWhenRowSecurityIsBypassed(dataSource);
    return dataSource;
  } catch (error) {
    if (migrator.isInitialized) await migrator.destroy().catch(() => undefined);
    if (system?.isInitialized) await system.destroy().catch(() => undefined);
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
}

function closeTogether(dataSource: DataSource, system: DataSource): void {
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    try {
      await destroy();
    } finally {
      if (system.isInitialized) await system.destroy();
    }
  };
}

/** System work on a role under row-level security would see no tenant's rows: refuse to boot. */
async function refuseSystemRoleWithoutBypass(system: DataSource): Promise<void> {
  const [role]: Array<{ name: string; bypasses: boolean }> = await system.query(
    `SELECT rolname AS name, rolsuper OR rolbypassrls AS bypasses FROM pg_roles WHERE rolname = current_user`,
  );
  if (role?.bypasses) return;
  throw new PlatformException(
    PlatformExceptionCode.DATABASE_ROLE_MISCONFIGURED,
    ErrorKind.UNAVAILABLE,
    `The system connection (DATABASE_SYSTEM_URL) logs in as ${role?.name ?? 'an unknown role'}, which ` +
      'does not bypass row-level security: cross-tenant system work would see no rows. Connect it as ' +
      'ops_system (BYPASSRLS), see docs/operations.md "Production database roles".',
  );
}

/** Row-level security does not apply to superusers, BYPASSRLS roles or (without FORCE) owners. */
async function warnWhenRowSecurityIsBypassed(dataSource: DataSource): Promise<void> {
  const [role]: Array<{ name: string; rolsuper: boolean; rolbypassrls: boolean; owns: boolean }> =
    await dataSource.query(
      `SELECT r.rolname AS name, r.rolsuper, r.rolbypassrls,
              EXISTS (SELECT 1 FROM pg_class c WHERE c.relowner = r.oid AND c.relname = 'documents') AS owns
         FROM pg_roles r WHERE r.rolname = current_user`,
    );
  if (role && (role.rolsuper || role.rolbypassrls || role.owns)) {
    logger.warn({
      msg:
        'the application connects as a role that bypasses row-level security (superuser, BYPASSRLS or ' +
        'table owner): tenant isolation is enforced by the application only. Connect DATABASE_URL as ' +
        'ops_app and set DATABASE_MIGRATION_URL to the owner (see docs).',
      role: role.name,
    });
  }
}
