import { ioredis } from './ioredis-module';

export type RedisCircuitState = 'closed' | 'open';

export type RedisCircuitOutcome<T> = { sent: true; reply: T } | { sent: false };

/**
 * Skips Redis while it is failing, so a slow or frozen Redis costs a request one command timeout,
 * not one per command. A command that times out or loses its connection opens the circuit: for
 * `cooldownMs` every command through it is skipped (the caller treats it as a miss or a dropped
 * write) at no cost. After the cool-down the next command starts one probe (a PING) in the
 * background and is skipped too; the probe's success closes the circuit, its failure opens it for
 * another cool-down. So no request ever waits on a probe: requests pay a timeout only for commands
 * that were already sent when Redis stopped answering (those run concurrently, one timeout in all).
 * One breaker is shared by every client of the same Redis in a process (cache, rate limits).
 * An error reply (Redis answered) does not open it.
 */
export class RedisCircuitBreaker {
  private openUntil: number | undefined;
  private probing = false;
  private readonly listeners: Array<(state: RedisCircuitState, error?: Error) => void> = [];
  /** Commands sent to Redis that failed (each cost up to a command timeout). */
  failedCommands = 0;
  /** Commands not sent because the circuit was open. */
  skippedCommands = 0;

  constructor(
    readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): RedisCircuitState {
    return this.openUntil === undefined ? 'closed' : 'open';
  }

  /** Called with every change of state (and the error that opened it). */
  onChange(listener: (state: RedisCircuitState, error?: Error) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Sends `command` unless the circuit is open; `probe` is a cheap command on the same Redis, run in
   * the background once the cool-down is over. Throws only error replies (Redis answered).
   */
  async run<T>(command: () => Promise<T>, probe: () => Promise<unknown>): Promise<RedisCircuitOutcome<T>> {
    if (this.openUntil !== undefined) {
      if (this.now() >= this.openUntil && !this.probing) this.startProbe(probe);
      this.skippedCommands++;
      return { sent: false };
    }
    try {
      return { sent: true, reply: await command() };
    } catch (error) {
      if (error instanceof ioredis().ReplyError) throw error;
      this.failedCommands++;
      this.open(error as Error);
      return { sent: false };
    }
  }

  /** The connection was (re)established: Redis answers again. */
  close(): void {
    if (this.openUntil === undefined) return;
    this.openUntil = undefined;
    for (const listener of this.listeners) listener('closed');
  }

  private open(error: Error): void {
    const wasClosed = this.openUntil === undefined;
    this.openUntil = this.now() + this.cooldownMs;
    if (wasClosed) for (const listener of this.listeners) listener('open', error);
  }

  private startProbe(probe: () => Promise<unknown>): void {
    this.probing = true;
    probe()
      .then(
        () => this.close(),
        (error: Error) => (error instanceof ioredis().ReplyError ? this.close() : this.open(error)),
      )
      .finally(() => (this.probing = false));
  }
}
