import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MigrationExecutor } from 'typeorm/migration/MigrationExecutor';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';

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

/**
 * Runs pending migrations while holding a session advisory lock, so concurrent boots migrate once.
 * Lock and migrations share one connection: the embedded pool has a single connection.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    if (applied.length > 0) logger.log({ msg: 'migrations applied', migrations: applied.map((m) => m.name) });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}

export async function prepareDatabase(dataSource: DataSource): Promise<DataSource> {
  if (!dataSource.isInitialized) await dataSource.initialize();
  try {
    const version = await ensureVectorExtension(dataSource);
    logger.log({ msg: 'pgvector available', version });
    await runMigrationsLocked(dataSource);
    return dataSource;
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
}
