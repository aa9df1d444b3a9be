import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { randomBytes } from 'node:crypto';
import {
  APP_EVENTS,
  CacheStore,
  type DocumentsChangedEvent,
  type TenantResyncEvent,
  type VersionedRead,
} from '@app/platform';
import { DocumentsConfig } from '../documents.config';

const versionKey = (tenantId: string) => `documents:search-version:${tenantId}`;
const entryKey = (tenantId: string, requestHash: string) => ({
  prefix: `documents:search:${tenantId}:`,
  suffix: `:${requestHash}`,
});
const newVersion = () => randomBytes(12).toString('base64url');

/**
 * The per-tenant version token search results are cached under (`documents:search:<tenant>:<version>:
 * <request hash>`). Every document change replaces it with a new random value, so old entries become
 * unreachable without scanning keys, and a hit is a single cache read with no database round trip.
 * A lost token (evicted, flushed) is recreated set-if-absent; that only orphans the old entries.
 */
@Injectable()
export class SearchCacheVersionsService {
  constructor(
    private readonly cache: CacheStore,
    private readonly config: DocumentsConfig,
  ) {}

  /** Not refreshed: an expired token only costs one round of misses, so a long TTL suffices. */
  private get versionTtlSeconds(): number {
    return Math.max(86_400, 10 * this.config.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS);
  }

  /** The tenant's current version and, when there is one, the entry cached under it. */
  read<T>(tenantId: string, requestHash: string): Promise<VersionedRead<T>> {
    return this.cache.getVersioned<T>(versionKey(tenantId), entryKey(tenantId, requestHash));
  }

  /** The tenant's version, created if missing (concurrent creators all get the winner's value). */
  async ensure(tenantId: string): Promise<string | undefined> {
    const version = await this.cache.setIfAbsent(versionKey(tenantId), newVersion(), this.versionTtlSeconds);
    return typeof version === 'string' ? version : undefined;
  }

  key(tenantId: string, version: string, requestHash: string): string {
    const { prefix, suffix } = entryKey(tenantId, requestHash);
    return `${prefix}${version}${suffix}`;
  }

  /**
   * Any fresh random value orphans every entry cached under the old one, including a result still
   * being computed from the state before this change. Replaced rather than deleted so the next search
   * does not have to create it.
   */
  @OnEvent(APP_EVENTS.DOCUMENTS_CHANGED)
  async onDocumentsChanged(event: DocumentsChangedEvent): Promise<void> {
    // A shared cache (Redis) was already given its new version by the process that made the change.
    if (event.remote && this.cache.backend === 'redis') return;
    await this.cache.set(versionKey(event.tenantId), newVersion(), this.versionTtlSeconds);
  }

  /** A change this process may have missed (or one whose version bump was lost with Redis). */
  @OnEvent(APP_EVENTS.TENANT_RESYNC)
  async onTenantResync(event: TenantResyncEvent): Promise<void> {
    if (event.domains.includes('documents'))
      await this.cache.set(versionKey(event.tenantId), newVersion(), this.versionTtlSeconds);
  }
}
