import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

export const ASSET_TYPES = [
  'prompt',
  'mapping',
  'policy',
  'query',
  'source',
  'catalog',
  'resolver',
  'tool',
  'screen',
  'stage',
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** A published, rolled back or archived asset. `version` is the version now serving (null once archived). */
export interface AssetLifecycleEvent {
  tenantId: string;
  assetId: string;
  assetType: AssetType;
  name: string;
  version: number | null;
  previousVersion: number | null;
  actor: string | null;
}

/** Any change to a tenant's document corpus (ingest done, update, delete, restore, purge). */
export interface DocumentsChangedEvent {
  tenantId: string;
  documentIds: string[];
  reason: 'ingested' | 'updated' | 'deleted' | 'restored' | 'purged' | 'reembedded';
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
}

export type AppEventName = keyof AppEventMap;

export const APP_EVENTS = {
  ASSET_PUBLISHED: 'asset.published',
  ASSET_ROLLED_BACK: 'asset.rolled_back',
  ASSET_ARCHIVED: 'asset.archived',
  DOCUMENTS_CHANGED: 'documents.changed',
} as const satisfies Record<string, AppEventName>;

/** Typed facade over the Nest event emitter. `emitAsync` waits for async listeners (and their errors). */
@Injectable()
export class EventBus {
  constructor(private readonly emitter: EventEmitter2) {}

  emit<K extends AppEventName>(name: K, payload: AppEventMap[K]): void {
    this.emitter.emit(name, payload);
  }

  async emitAsync<K extends AppEventName>(name: K, payload: AppEventMap[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }
}
