import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

/** Two 32-bit keys from a job name (namespace 0x6f707331 = "ops1"), stable across processes. */
export function advisoryKeyOf(name: string): [number, number] {
  return [0x6f707331, createHash('sha256').update(name).digest().readInt32BE(0)];
}

/**
 * Runs a scheduled job at most once at a time across every process on the database: the process
 * that takes `pg_try_advisory_lock` runs it, the others skip this round. The lock is a session lock
 * on one dedicated connection, so a process that dies mid-run releases it with its connection.
 * Embedded PGlite serves a single process (its data directory is locked), so it runs directly.
 */
@Injectable()
export class ClusterLock {
  private readonly logger = new Logger(ClusterLock.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** The job's result, or `{ skipped: true }` when another process holds the lock. */
  async runExclusive<T>(
    name: string,
    job: () => Promise<T>,
  ): Promise<{ skipped: false; result: T } | { skipped: true }> {
    if (!this.config.databaseUrl) return { skipped: false, result: await job() };
    const [space, key] = advisoryKeyOf(name);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [
        space,
        key,
      ])) as Array<{
        locked: boolean;
      }>;
      if (!row?.locked) {
        this.logger.debug({ msg: 'scheduled job already running elsewhere, skipped', job: name });
        return { skipped: true };
      }
      try {
        return { skipped: false, result: await job() };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1, $2)', [space, key]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }
}
