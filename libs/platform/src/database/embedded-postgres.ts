import { Logger } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataDirLock } from './data-dir-lock';

export interface EmbeddedConnection {
  /** Directory holding the Unix socket; pass as `host` to the pg driver. */
  socketDir: string;
  port: number;
  user: string;
  database: string;
}

const SOCKET_PORT = 5432;

/**
 * PostgreSQL 18 + pgvector compiled to WASM (PGlite), persisted in DATA_DIR and served on a private
 * Unix socket so TypeORM's ordinary postgres driver, the migrations and all SQL are shared with a
 * native server.
 */
export class EmbeddedPostgres {
  private readonly logger = new Logger(EmbeddedPostgres.name);
  private lock?: DataDirLock;
  private db?: PGlite;
  private server?: PGLiteSocketServer;
  private socketDir?: string;

  constructor(
    private readonly dataDir: string,
    private readonly maxConnections: number,
  ) {}

  get pgDataDir(): string {
    return path.join(this.dataDir, 'pgdata');
  }

  async start(): Promise<EmbeddedConnection> {
    mkdirSync(this.dataDir, { recursive: true });
    this.lock = DataDirLock.acquire(this.dataDir);
    try {
      const started = Date.now();
      const [{ PGlite }, { vector }, { PGLiteSocketServer }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('@electric-sql/pglite-pgvector'),
        import('@electric-sql/pglite-socket'),
      ]);
      this.db = await PGlite.create({ dataDir: this.pgDataDir, extensions: { vector } });
      // A short private path: Unix socket paths are limited to ~107 bytes and DATA_DIR may be long.
      this.socketDir = mkdtempSync(path.join(os.tmpdir(), 'ops-pg-'));
      this.server = new PGLiteSocketServer({
        db: this.db,
        path: path.join(this.socketDir, `.s.PGSQL.${SOCKET_PORT}`),
        maxConnections: this.maxConnections,
      });
      await this.server.start();
      this.logger.log({
        msg: 'embedded PostgreSQL ready',
        dataDir: this.pgDataDir,
        ms: Date.now() - started,
      });
      return { socketDir: this.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' };
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    try {
      await this.server?.stop();
      await this.db?.close();
    } finally {
      this.server = undefined;
      this.db = undefined;
      if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
      this.socketDir = undefined;
      this.lock?.release();
      this.lock = undefined;
    }
  }
}
