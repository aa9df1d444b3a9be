import { Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ChangeBus, type ChangeMessage, isClusterEvent } from './change-bus';

/**
 * A published, rolled back or archived asset. `version` is the version now serving (null once archived);
 * `assetType` is one the asset registry's `AssetTypeRegistry` holds (the libs that own types register them).
 */
export interface AssetLifecycleEvent {
  tenantId: string;
  assetId: string;
  assetType: string;
  name: string;
  version: number | null;
  previousVersion: number | null;
  actor: string | null;
  /** Set when the change was made by another process and arrived on the change bus. */
  remote?: boolean;
}

/** Any change to a tenant's document corpus (ingest done, update, delete, restore, purge). */
export interface DocumentsChangedEvent {
  tenantId: string;
  documentIds: string[];
  reason: 'ingested' | 'updated' | 'deleted' | 'restored' | 'purged' | 'reembedded';
  /** Set when the change was made by another process and arrived on the change bus. */
  remote?: boolean;
}

/** What a per-tenant change generation counts (see ChangePropagation). */
export type ChangeDomain = 'assets' | 'documents' | 'api_keys';

/**
 * A tenant changed in ways this process may not have heard of (a change-bus message was lost): every
 * listener reloads what it holds of that tenant's domains from the database. Local to each process.
 */
export interface TenantResyncEvent {
  tenantId: string;
  domains: ChangeDomain[];
}

/**
 * Every cross-module event, by name. Modules react to each other through these (`@OnEvent(name)`),
 * never by importing each other's internals.
 */
export interface AppEventMap {
  'asset.published': AssetLifecycleEvent;
  'asset.rolled_back': AssetLifecycleEvent;
  'asset.archived': AssetLifecycleEvent;
  'documents.changed': DocumentsChangedEvent;
  'tenant.resync': TenantResyncEvent;
}

export type AppEventName = keyof AppEventMap;

export const APP_EVENTS = {
  ASSET_PUBLISHED: 'asset.published',
  ASSET_ROLLED_BACK: 'asset.rolled_back',
  ASSET_ARCHIVED: 'asset.archived',
  DOCUMENTS_CHANGED: 'documents.changed',
  TENANT_RESYNC: 'tenant.resync',
} as const satisfies Record<string, AppEventName>;

/**
 * Typed facade over the Nest event emitter. `emitAsync` waits for async listeners (and their errors).
 * The events that change what another process serves (CLUSTER_EVENTS) are also published on the
 * change bus, after this process's own listeners ran; other processes re-emit them with `emitLocal`.
 */
@Injectable()
export class EventBus {
  private readonly logger = new Logger('EventBus');

  constructor(
    private readonly emitter: EventEmitter2,
    @Optional() private readonly bus?: ChangeBus,
  ) {}

  emit<K extends AppEventName>(name: K, payload: AppEventMap[K]): void {
    this.emitter.emit(name, payload);
    this.share(name, payload);
  }

  async emitAsync<K extends AppEventName>(name: K, payload: AppEventMap[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
    this.share(name, payload);
  }

  /** An event received from another process (or a resync): this process's listeners only. */
  async emitLocal<K extends AppEventName>(name: K, payload: AppEventMap[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }

  private share<K extends AppEventName>(name: K, payload: AppEventMap[K]): void {
    if (!this.bus || !isClusterEvent(name)) return;
    // Best effort: a lost message is made up for by the change-generation poll.
    this.bus
      .publish({ origin: this.bus.origin, name, payload } as ChangeMessage)
      .catch((error: Error) =>
        this.logger.debug({ msg: 'change not published on the bus', event: name, error: error.message }),
      );
  }
}
