export interface RetryOptions {
  /** Attempts after the first one; `retries: 2` runs `fn` at most three times. */
  retries: number;
  /** The wait before the first retry; each later wait is `factor` times the one before. */
  baseDelayMs: number;
  /** Growth of the wait per retry (default 2: base, 2 x base, 4 x base...). */
  factor?: number;
  /** Spread of each wait as a fraction: 0.2 waits between 0.8 and 1.2 times the backoff (default 0). */
  jitter?: number;
  /** False for errors a retry cannot fix (bad input); those are thrown at once. Default: all retry. */
  isRetryable?: (error: unknown, attempt: number) => boolean;
  /** A wait the failure itself asks for (an HTTP Retry-After), used instead of the backoff. */
  waitOf?: (error: unknown) => number | undefined;
  /** Once aborted, a failure is thrown instead of retried, and a pending wait ends early. */
  signal?: AbortSignal;
  /** Called before each wait, e.g. to log the retry. */
  onRetry?: (info: { error: unknown; attempt: number; delayMs: number }) => void;
  /** Replaces the timer; tests use it to record the waits. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Waits `ms`, or less when `signal` aborts; never rejects (the next attempt sees the abort). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * Runs `fn(attempt)` (attempt counts from 1) and retries failures with exponential backoff. The
 * last failure is thrown unchanged; callers that report the attempt count read it from `attempt`.
 * The one backoff loop of the code base: the LLM client, the embeddings client and the chat's
 * searches all use it.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 0;
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const retryable = options.isRetryable?.(error, attempt) ?? true;
      if (!retryable || attempt > options.retries || options.signal?.aborted) throw error;
      const backoff =
        options.baseDelayMs * factor ** (attempt - 1) * (1 - jitter + Math.random() * 2 * jitter);
      const delayMs = options.waitOf?.(error) ?? backoff;
      options.onRetry?.({ error, attempt, delayMs });
      await sleep(delayMs, options.signal);
    }
  }
}
