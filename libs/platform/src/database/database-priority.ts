import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is waiting for the database. `foreground`: a request someone is waiting for (the default for
 * every async context). `background`: work nobody waits for at that moment (document ingestion, code
 * diff indexing, the demo load, scheduled jobs), which on the embedded database yields to foreground
 * work (EmbeddedScheduler). The native server serves every connection at once: it ignores the mark.
 */
export type DatabasePriority = 'foreground' | 'background';

const storage = new AsyncLocalStorage<DatabasePriority>();

/** The priority of the current async context: `background` only inside `runInBackground`. */
export function currentDatabasePriority(): DatabasePriority {
  return storage.getStore() ?? 'foreground';
}

/**
 * Runs `fn`, and everything it starts (timers, promises), as background work: on the embedded database
 * each of its statements and transactions waits while foreground work is queued (see EmbeddedScheduler).
 */
export function runInBackground<T>(fn: () => T): T {
  return storage.run('background', fn);
}

/** Runs `fn` as foreground work, e.g. a step of background work that a caller is waiting for. */
export function runInForeground<T>(fn: () => T): T {
  return storage.run('foreground', fn);
}
