export interface RetryOutcome<T> {
  value: T;
  attempts: number;
}

export class RetriesExhausted extends Error {
  constructor(
    readonly lastError: Error,
    readonly attempts: number,
  ) {
    super(lastError.message);
    this.name = 'RetriesExhausted';
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn`, retrying failures `retries` times after `baseDelayMs`, then twice that, ... (the seed's
 * 1 s / 2 s). Throws RetriesExhausted with the last error.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  options: {
    retries: number;
    baseDelayMs: number;
    /** False for errors a retry cannot fix (bad input); those end the attempts at once. */
    retryable?: (error: Error) => boolean;
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<RetryOutcome<T>> {
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await fn(attempt), attempts: attempt };
    } catch (error) {
      if (attempt > options.retries || options.retryable?.(error as Error) === false)
        throw new RetriesExhausted(error as Error, attempt);
      await sleep(options.baseDelayMs * 2 ** (attempt - 1));
    }
  }
}
