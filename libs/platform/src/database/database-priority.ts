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

/**
 * Requests in progress in this process (HTTP requests between their arrival and their response), so
 * the embedded connection can be kept for a request across the gaps between its statements (parsing,
 * authorisation, planning, awaiting its own I/O), not just for a fixed quiet window after each one:
 * on a loaded machine those gaps are longer than the window, and a background statement that starts
 * in one is a wait the request did not need. EmbeddedScheduler reads it; the native server ignores it.
 */
const requests = { inFlight: 0, lastStart: Number.NEGATIVE_INFINITY };
const requestEndListeners = new Set<() => void>();

/** Marks a request as in progress until the returned function is called (calling it again does nothing). */
export function beginRequest(): () => void {
  requests.inFlight++;
  requests.lastStart = performance.now();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    requests.inFlight--;
    for (const listener of [...requestEndListeners]) listener();
  };
}

/** How many requests are in progress, and when the latest began (performance.now()). */
export function requestActivity(): { inFlight: number; lastStart: number } {
  return { ...requests };
}

/** Calls `listener` each time a request ends, until the returned function is called. */
export function onRequestEnd(listener: () => void): () => void {
  requestEndListeners.add(listener);
  return () => requestEndListeners.delete(listener);
}
