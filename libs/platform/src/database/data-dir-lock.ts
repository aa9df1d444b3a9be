import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';

interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Exclusive ownership of a data directory. PGlite has no locking of its own: two processes on one
 * directory silently lose writes, so the second one must refuse to start.
 */
export class DataDirLock {
  private held = false;
  private readonly releaseOnExit = (): void => this.release();

  private constructor(readonly file: string) {}

  static acquire(dataDir: string): DataDirLock {
    const lock = new DataDirLock(path.join(dataDir, 'ops.lock'));
    lock.take();
    return lock;
  }

  private take(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.file, 'wx', 0o600);
        const owner: LockOwner = {
          pid: process.pid,
          hostname: os.hostname(),
          startedAt: new Date().toISOString(),
        };
        writeSync(fd, JSON.stringify(owner));
        closeSync(fd);
        this.held = true;
        process.once('exit', this.releaseOnExit);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(this.file);
        const sameHost = owner?.hostname === os.hostname();
        if (owner && (!sameHost || isAlive(owner.pid))) {
          throw new PlatformException(
            PlatformExceptionCode.DATA_DIR_LOCKED,
            ErrorKind.CONFLICT,
            `Data directory ${path.dirname(this.file)} is in use by process ${owner.pid} on ${owner.hostname} ` +
              `(since ${owner.startedAt}). Stop that process, or point DATA_DIR elsewhere. ` +
              `If no such process exists, delete ${this.file}.`,
            { lockFile: this.file, owner },
          );
        }
        // The owner is gone (crash or kill -9): the lock is stale.
        unlinkSync(this.file);
      }
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    process.removeListener('exit', this.releaseOnExit);
    try {
      unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}
