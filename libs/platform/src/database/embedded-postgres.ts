import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { clusterImageMismatch, unpackClusterImage } from './cluster-image';
import { DataDirLock } from './data-dir-lock';
import {
  EMBEDDED_WORKER_SOURCE,
  EmbeddedWorkerData,
  EmbeddedWorkerMessage,
} from './embedded-postgres.worker';

export interface EmbeddedConnection {
  /** Directory holding the Unix socket; pass as `host` to the pg driver. */
  socketDir: string;
  port: number;
  user: string;
  database: string;
  /** Resolves when the database accepts connections (at once, unless it is restarting). */
  whenAvailable: () => Promise<void>;
}

const SOCKET_PORT = 5432;
const STOP_GRACE_MS = 15_000;

/** The socket server's connection limit for an application pool of `poolSize` (the migration pool and a spare beside it). */
export const embeddedMaxConnections = (poolSize: number): number => poolSize + 2;

/** Databases started by `EmbeddedPostgres.startEarly`, by data directory, until the DatabaseModule takes one. */
const earlyStarts = new Map<string, EmbeddedPostgres>();

/**
 * PostgreSQL 18 + pgvector compiled to WASM (PGlite), persisted in DATA_DIR and served on a private
 * Unix socket so TypeORM's ordinary postgres driver, the migrations and all SQL are shared with a
 * native server. PGlite runs in a worker thread: the HTTP event loop stays live while it executes, and
 * a statement that runs past its deadline (PGlite has no statement_timeout) is ended by `interrupt()`,
 * which terminates the thread and starts the database again from its data directory (crash recovery).
 */
export class EmbeddedPostgres {
  private readonly logger = new Logger(EmbeddedPostgres.name);
  private lock?: DataDirLock;
  private worker?: Worker;
  private socketDir?: string;
  private restarting?: Promise<void>;
  private starting?: Promise<EmbeddedConnection>;
  private interruptions = 0;

  /**
   * Starts the database of `dataDir` now, for `forDataDir` to hand over later. A server's main() calls
   * it before it loads the application's modules: PGlite then loads, compiles its WebAssembly and opens
   * the cluster on its own thread while the main thread loads the modules (seconds each on a busy
   * machine), instead of after them. A failure is reported where the database is taken over: its
   * `start()` returns this same attempt.
   */
  static startEarly(dataDir: string, maxConnections: number): void {
    const resolved = path.resolve(dataDir);
    if (earlyStarts.has(resolved)) return;
    const database = new EmbeddedPostgres(resolved, maxConnections);
    earlyStarts.set(resolved, database);
    database.start().catch(() => undefined);
  }

  /** The database `startEarly` started for this data directory (handed over once), else a new one. */
  static forDataDir(dataDir: string, maxConnections: number): EmbeddedPostgres {
    const resolved = path.resolve(dataDir);
    const early = earlyStarts.get(resolved);
    earlyStarts.delete(resolved);
    return early ?? new EmbeddedPostgres(resolved, maxConnections);
  }

  constructor(
    private readonly dataDir: string,
    private readonly maxConnections: number,
    /** false: a new cluster is made by initdb, not from the prepared image (`npm run embedded:image`). */
    private readonly options: { clusterImage?: boolean } = {},
  ) {}

  get pgDataDir(): string {
    return path.join(this.dataDir, 'pgdata');
  }

  /** How many runaway statements were ended by restarting the database thread. */
  get interruptCount(): number {
    return this.interruptions;
  }

  /** Starts the database; a second call (before `stop()`) returns the same attempt. */
  start(): Promise<EmbeddedConnection> {
    this.starting ??= this.open();
    return this.starting;
  }

  private async open(): Promise<EmbeddedConnection> {
    mkdirSync(this.dataDir, { recursive: true });
    this.lock = DataDirLock.acquire(this.dataDir);
    try {
      // A short private path: Unix socket paths are limited to ~107 bytes and DATA_DIR may be long.
      this.socketDir = mkdtempSync(path.join(os.tmpdir(), 'ops-pg-'));
      // Both synchronous up to the thread's start: an early start's thread starts before main() goes on.
      this.prepareCluster();
      const ms = await this.startWorker();
      this.logger.log({ msg: 'embedded PostgreSQL ready', dataDir: this.pgDataDir, ms });
      return {
        socketDir: this.socketDir,
        port: SOCKET_PORT,
        user: 'postgres',
        database: 'postgres',
        whenAvailable: () => this.restarting?.catch(() => undefined) ?? Promise.resolve(),
      };
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Ends whatever the database is executing by terminating its thread, then starts it again on the
   * same data directory and socket. Connections open at that moment fail (the pool replaces them);
   * concurrent calls share one restart.
   */
  interrupt(reason: string): Promise<void> {
    if (!this.worker || !this.socketDir) return Promise.resolve();
    this.restarting ??= (async () => {
      this.interruptions++;
      this.logger.warn({ msg: 'interrupting the embedded database', reason });
      const worker = this.worker;
      this.worker = undefined;
      await worker?.terminate();
      const ms = await this.startWorker();
      this.logger.warn({ msg: 'embedded PostgreSQL restarted after an interrupt', ms });
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  async stop(): Promise<void> {
    // A start still under way finishes first (its thread and lock would be left behind otherwise).
    await this.starting?.catch(() => undefined);
    this.starting = undefined;
    await this.close();
  }

  private async close(): Promise<void> {
    try {
      await this.restarting?.catch(() => undefined);
      const worker = this.worker;
      this.worker = undefined;
      if (worker) await this.stopWorker(worker);
    } finally {
      if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
      this.socketDir = undefined;
      this.lock?.release();
      this.lock = undefined;
    }
  }

  /** A first start unpacks the prepared cluster image; without a usable one, PGlite runs initdb. */
  private prepareCluster(): void {
    if (existsSync(path.join(this.pgDataDir, 'PG_VERSION')) || this.options.clusterImage === false) return;
    const mismatch = clusterImageMismatch();
    if (mismatch) {
      this.logger.warn({ msg: 'creating the embedded cluster with initdb (slow)', reason: mismatch });
      return;
    }
    const started = Date.now();
    try {
      unpackClusterImage(this.pgDataDir);
      this.logger.log({ msg: 'embedded cluster unpacked from the prepared image', ms: Date.now() - started });
    } catch (error) {
      this.logger.warn({
        msg: 'could not unpack the prepared cluster image; creating the cluster with initdb (slow)',
        error: (error as Error).message,
      });
    }
  }

  private startWorker(): Promise<number> {
    const socketPath = path.join(this.socketDir!, `.s.PGSQL.${SOCKET_PORT}`);
    rmSync(socketPath, { force: true });
    const workerData: EmbeddedWorkerData = {
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        vector: require.resolve('@electric-sql/pglite-pgvector'),
        socket: require.resolve('@electric-sql/pglite-socket'),
      },
      pgDataDir: this.pgDataDir,
      socketPath,
      maxConnections: this.maxConnections,
    };
    const worker = new Worker(EMBEDDED_WORKER_SOURCE, { eval: true, workerData });
    return new Promise<number>((resolve, reject) => {
      const fail = (error: Error) => {
        void worker.terminate();
        reject(error);
      };
      worker.once('error', fail);
      worker.once('exit', (code) => fail(new Error(`embedded database thread exited with code ${code}`)));
      worker.once('message', (message: EmbeddedWorkerMessage) => {
        worker.removeAllListeners('error');
        worker.removeAllListeners('exit');
        if (message.type !== 'ready') {
          const error = new Error(message.type === 'failed' ? message.message : 'unexpected message');
          if (message.type === 'failed' && message.stack) error.stack = message.stack;
          return fail(error);
        }
        worker.on('error', (error) =>
          this.logger.error({ msg: 'embedded database thread failed', error: error.message }),
        );
        worker.once('exit', (code) => {
          if (this.worker !== worker) return;
          this.logger.error({ msg: 'embedded database thread exited; starting it again', code });
          this.worker = undefined;
          this.restarting ??= this.startWorker()
            .then(() => undefined)
            .finally(() => {
              this.restarting = undefined;
            });
        });
        this.worker = worker;
        resolve(message.ms);
      });
    });
  }

  private async stopWorker(worker: Worker): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      worker.on('message', (message: EmbeddedWorkerMessage) => {
        if (message.type === 'stopped') resolve();
      });
      worker.once('exit', () => resolve());
    });
    worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_GRACE_MS);
    });
    await Promise.race([stopped, timedOut]);
    clearTimeout(timer);
    await worker.terminate();
  }
}
