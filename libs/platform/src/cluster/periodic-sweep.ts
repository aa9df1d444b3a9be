import { runInBackground } from '../database/database-priority';

/**
 * A sweep a process runs on a timer (webhook retries, the agent-run takeover): every tick runs it as
 * background work (on the embedded database requests go first), a tick that finds the previous sweep
 * still running joins it instead of starting a second, a failed sweep is reported and the next tick
 * tries again. The timer does not keep the process alive; `stop` ends it and waits for the sweep in flight.
 */
export class PeriodicSweep<T> {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<T> | null = null;

  constructor(
    private readonly work: () => Promise<T>,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /** Runs the sweep every `intervalMs` until `stop` (a second `start` replaces the first timer). */
  start(intervalMs: number): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      runInBackground(() => this.run()).catch((error: Error) => this.onFailure(error));
    }, intervalMs);
    this.timer.unref();
  }

  /** One sweep now, or the one already running; resolves with its result. */
  run(): Promise<T> {
    this.current ??= this.work().finally(() => (this.current = null));
    return this.current;
  }

  /** Ends the timer; resolves once the sweep in flight (if any) has settled, whatever its outcome. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.current?.catch(() => undefined);
  }
}
