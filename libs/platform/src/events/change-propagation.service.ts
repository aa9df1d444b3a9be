import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CacheStore } from '../cache/cache-store';
import { PlatformConfig } from '../platform.config';
import { runAsSystem } from '../database/database-scope';
import { type ChangeDomain, EventBus } from './app-events';
import { ChangeBus } from './change-bus';
import { ChangeGenerationsRepository, TenantGenerations } from './change-generations.repository';

const DOMAINS: ChangeDomain[] = ['assets', 'documents', 'api_keys'];

/**
 * Keeps this process in step with the others. Change events from other processes arrive on the
 * change bus and are re-emitted here, so the listeners that already keep this process's state
 * (dynamic tools, published-asset cache, search cache version, MCP list_changed) react as if the
 * change had been made here. Delivery is at most once, so every CHANGE_POLL_SECONDS (and right after
 * the bus reconnects) the per-tenant change generations are read, and a tenant whose generation
 * moved is resynchronised from the database (`tenant.resync`). Bound: a change is served everywhere
 * within the bus delivery time, or within CHANGE_POLL_SECONDS plus one reload when a message was lost.
 * The poll reloads a moved tenant even when its message arrived: reloads are idempotent, and it
 * cannot tell a delivered message from a lost one without ordering the two.
 */
@Injectable()
export class ChangePropagation implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangePropagation');
  private known = new Map<string, TenantGenerations>();
  /**
   * Tenants resynchronised while the bus was down or the cache unavailable (its circuit open): their
   * shared-cache invalidations may have been dropped, so they are done again once both are back (on
   * reconnect, or at the next poll).
   */
  private readonly resyncedWhileDown = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<number> | undefined;
  private polls = true;

  constructor(
    private readonly bus: ChangeBus,
    private readonly events: EventBus,
    private readonly generations: ChangeGenerationsRepository,
    private readonly config: PlatformConfig,
    private readonly cache: CacheStore,
    @Optional() private readonly scheduler?: SchedulerRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.start({
      message: (message) => {
        if (message.origin === this.bus.origin) return;
        this.events.emitLocal(message.name, { ...message.payload, remote: true }).catch((error: Error) =>
          this.logger.warn({
            msg: 'applying a change from another process failed',
            event: message.name,
            error: error.message,
          }),
        );
      },
      reconnected: () => void this.poll(),
    });
    // Embedded: one process, nothing to converge with.
    this.polls = Boolean(this.config.DATABASE_URL);
    if (!this.polls) return;
    this.known = await this.read().catch(() => new Map<string, TenantGenerations>());
    // One-shot contexts (CLI) do not live long enough to need the timer.
    if (!this.scheduler) return;
    this.timer = setInterval(() => void this.poll(), this.config.CHANGE_POLL_SECONDS * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.polls = false;
    await this.polling?.catch(() => undefined);
    await this.bus.stop();
  }

  get busBackend(): string {
    return this.bus.backend;
  }

  busConnected(): boolean {
    return this.bus.connected();
  }

  /** Reads the generations now and resynchronises every tenant that moved; the number resynchronised. */
  poll(): Promise<number> {
    if (!this.polls) return Promise.resolve(0);
    this.polling ??= this.redoMissedResyncs()
      .then(() => this.compareAndResync())
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private sharedStateReachable(): boolean {
    return this.bus.connected() && this.cache.health().available;
  }

  private async redoMissedResyncs(): Promise<void> {
    if (this.resyncedWhileDown.size === 0 || !this.sharedStateReachable()) return;
    const tenants = [...this.resyncedWhileDown];
    this.resyncedWhileDown.clear();
    for (const tenantId of tenants) {
      await this.events
        .emitLocal('tenant.resync', { tenantId, domains: DOMAINS })
        .catch((error: Error) =>
          this.logger.warn({ msg: 'tenant resync after reconnect failed', tenantId, error: error.message }),
        );
    }
  }

  private read(): Promise<Map<string, TenantGenerations>> {
    return runAsSystem(
      'change propagation: read tenant change generations',
      () => this.generations.readAll(),
      {
        quiet: true,
      },
    );
  }

  private async compareAndResync(): Promise<number> {
    let current: Map<string, TenantGenerations>;
    try {
      current = await this.read();
    } catch (error) {
      this.logger.debug({ msg: 'reading change generations failed', error: (error as Error).message });
      return 0;
    }
    let resynced = 0;
    for (const [tenantId, generations] of current) {
      const before = this.known.get(tenantId);
      const domains = DOMAINS.filter((d) => generations[d] !== (before?.[d] ?? 0));
      if (domains.length === 0) continue;
      try {
        await this.events.emitLocal('tenant.resync', { tenantId, domains });
        this.known.set(tenantId, generations);
        if (!this.sharedStateReachable()) this.resyncedWhileDown.add(tenantId);
        resynced++;
      } catch (error) {
        // Left unknown, so the next poll tries again.
        this.logger.warn({ msg: 'tenant resync failed', tenantId, domains, error: (error as Error).message });
      }
    }
    if (resynced > 0) this.logger.debug({ msg: 'tenants resynchronised', tenants: resynced });
    return resynced;
  }
}
