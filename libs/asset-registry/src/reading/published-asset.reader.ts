import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { type AssetLifecycleEvent, CacheStore, runAsTenant, type TenantResyncEvent } from '@app/platform';
import { AssetTypeRegistry, type AssetType } from '../types/asset-type.registry';
import type {
  CatalogContent,
  MappingContent,
  PolicyContent,
  PromptContent,
  ResolverContent,
  ToolAssetSpec,
} from '../asset-contents';
import type { PublishedAsset, PublishedContent } from '../asset.types';
import { AssetRepository, type PublishedRow } from '../persistence/asset.repository';
import {
  toCatalogContent,
  toMappingContent,
  toPromptContent,
  toPublishedContent,
  toQueryToolSpec,
  toToolSpec,
} from './asset-content.mapper';
import { AssetRegistryConfig } from '../asset-registry.config';

export function toPublishedAsset({ asset, version }: PublishedRow): PublishedAsset {
  return {
    asset_id: asset.assetId,
    tenant_id: asset.tenantId,
    asset_type: asset.assetType,
    name: asset.name,
    version: version.version,
    published_at: version.publishedAt.toISOString(),
    published_by: version.publishedBy,
    rollback_from_version: version.rollbackFromVersion,
    snapshot: version.snapshot,
  };
}

const oneKey = (tenantId: string, type: AssetType, name: string) =>
  `assets:published:${tenantId}:${type}:${encodeURIComponent(name)}`;
const listKey = (tenantId: string, type: AssetType) => `assets:published-list:${tenantId}:${type}`;
const allKey = (type: AssetType) => `assets:published-all:${type}`;

/**
 * What other modules read: the version of each asset now serving, never a draft. Lookups are cached
 * (shared through Redis when configured) and dropped on every publish, rollback and archive.
 */
@Injectable()
export class PublishedAssetReader {
  constructor(
    private readonly repository: AssetRepository,
    private readonly cache: CacheStore,
    private readonly config: AssetRegistryConfig,
    private readonly types: AssetTypeRegistry,
  ) {}

  private get ttl(): number {
    return this.config.ASSET_CACHE_TTL_SECONDS;
  }

  /** The serving snapshot and its version, or null when nothing of that name is published. */
  async getPublished(tenantId: string, assetType: AssetType, name: string): Promise<PublishedAsset | null> {
    const { value } = await this.cache.getOrCompute(oneKey(tenantId, assetType, name), this.ttl, async () => {
      const row = await this.repository.findPublished(tenantId, assetType, name);
      return { asset: row ? toPublishedAsset(row) : null };
    });
    return value.asset;
  }

  async listPublished(tenantId: string, assetType: AssetType): Promise<PublishedAsset[]> {
    const { value } = await this.cache.getOrCompute(listKey(tenantId, assetType), this.ttl, async () =>
      (await this.repository.listPublished(tenantId, assetType)).map(toPublishedAsset),
    );
    return value;
  }

  /** Every tenant's published assets of a type (e.g. the tool registry loading dynamic tools at startup). */
  async listPublishedAcrossTenants(assetType: AssetType): Promise<PublishedAsset[]> {
    const { value } = await this.cache.getOrCompute(allKey(assetType), this.ttl, async () =>
      (await this.repository.listPublished(null, assetType)).map(toPublishedAsset),
    );
    return value;
  }

  async getPublishedCatalog(
    tenantId: string,
    name: string,
  ): Promise<PublishedContent<CatalogContent> | null> {
    const asset = await this.getPublished(tenantId, 'catalog', name);
    return asset ? toPublishedContent(asset, toCatalogContent) : null;
  }

  async listPublishedCatalogs(tenantId: string): Promise<PublishedContent<CatalogContent>[]> {
    return (await this.listPublished(tenantId, 'catalog')).map((a) =>
      toPublishedContent(a, toCatalogContent),
    );
  }

  async getPublishedMapping(
    tenantId: string,
    name: string,
  ): Promise<PublishedContent<MappingContent> | null> {
    const asset = await this.getPublished(tenantId, 'mapping', name);
    return asset ? toPublishedContent(asset, toMappingContent) : null;
  }

  async listPublishedMappings(tenantId: string): Promise<PublishedContent<MappingContent>[]> {
    return (await this.listPublished(tenantId, 'mapping')).map((a) =>
      toPublishedContent(a, toMappingContent),
    );
  }

  async getPublishedPrompt(tenantId: string, name: string): Promise<PublishedContent<PromptContent> | null> {
    const asset = await this.getPublished(tenantId, 'prompt', name);
    return asset ? toPublishedContent(asset, toPromptContent) : null;
  }

  async getPublishedTool(tenantId: string, name: string): Promise<PublishedContent<ToolAssetSpec> | null> {
    const asset = await this.getPublished(tenantId, 'tool', name);
    return asset ? toPublishedContent(asset, toToolSpec) : null;
  }

  async listPublishedTools(tenantId: string): Promise<PublishedContent<ToolAssetSpec>[]> {
    return (await this.listPublished(tenantId, 'tool')).map((a) => toPublishedContent(a, toToolSpec));
  }

  async listPublishedToolsAcrossTenants(): Promise<PublishedContent<ToolAssetSpec>[]> {
    return (await this.listPublishedAcrossTenants('tool')).map((a) => toPublishedContent(a, toToolSpec));
  }

  /** The tenant's published policies (of every policy_type). */
  async listPublishedPolicies(tenantId: string): Promise<PublishedContent<PolicyContent>[]> {
    return (await this.listPublished(tenantId, 'policy')).map((a) =>
      toPublishedContent(a, (snapshot) => snapshot.content as PolicyContent),
    );
  }

  /** The tenant's published resolvers (aliases and patterns that map typed names to canonical values). */
  async listPublishedResolvers(tenantId: string): Promise<PublishedContent<ResolverContent>[]> {
    return (await this.listPublished(tenantId, 'resolver')).map((a) =>
      toPublishedContent(a, (snapshot) => snapshot.content as ResolverContent),
    );
  }

  /** A published query asset as the spec of the `query` tool that runs it. */
  async getPublishedQueryTool(
    tenantId: string,
    name: string,
  ): Promise<PublishedContent<ToolAssetSpec> | null> {
    const asset = await this.getPublished(tenantId, 'query', name);
    return asset ? toPublishedContent(asset, toQueryToolSpec) : null;
  }

  async listPublishedQueryTools(tenantId: string): Promise<PublishedContent<ToolAssetSpec>[]> {
    return (await this.listPublished(tenantId, 'query')).map((a) => toPublishedContent(a, toQueryToolSpec));
  }

  async listPublishedQueryToolsAcrossTenants(): Promise<PublishedContent<ToolAssetSpec>[]> {
    return (await this.listPublishedAcrossTenants('query')).map((a) =>
      toPublishedContent(a, toQueryToolSpec),
    );
  }

  /** Drops every cached lookup that could include this asset. */
  async invalidate(tenantId: string, assetType: AssetType, name: string): Promise<void> {
    await this.cache.delete(
      oneKey(tenantId, assetType, name),
      listKey(tenantId, assetType),
      allKey(assetType),
    );
  }

  /**
   * Drops every cached lookup of one tenant (and the cross-tenant lists), for a process that may have
   * missed the individual invalidations (a shared cache written while Redis was unreachable).
   */
  async invalidateTenant(tenantId: string): Promise<void> {
    const names = await runAsTenant(tenantId, () => this.repository.namesOf(tenantId));
    // The registered types, and any the tenant still holds that no loaded module registers.
    const types = [...new Set([...this.types.types(), ...names.map((n) => n.assetType)])];
    await this.cache.delete(
      ...names.map(({ assetType, name }) => oneKey(tenantId, assetType, name)),
      ...types.map((type) => listKey(tenantId, type)),
      ...types.map((type) => allKey(type)),
    );
  }

  @OnEvent('tenant.resync')
  async onTenantResync(event: TenantResyncEvent): Promise<void> {
    if (event.domains.includes('assets')) await this.invalidateTenant(event.tenantId);
  }

  @OnEvent('asset.published')
  @OnEvent('asset.rolled_back')
  @OnEvent('asset.archived')
  async onAssetLifecycle(event: AssetLifecycleEvent): Promise<void> {
    // A shared cache (Redis) was already invalidated by the process that made the change.
    if (event.remote && this.cache.backend === 'redis') return;
    await this.invalidate(event.tenantId, event.assetType, event.name);
  }
}
