import { Injectable } from '@nestjs/common';
import type { CatalogContent, MappingContent, PromptContent, PublishedContent } from '@app/asset-registry';
import { PublishedAssetReader } from '@app/asset-registry';
import { PlanningKnowledge, VersionedAsset } from './planning-knowledge';

/** The asset names the planner reads; the demo loader publishes the first two for the demo tenant. */
export const PLANNER_ASSET_NAMES = {
  catalog: 'ops',
  mappings: 'ops-keywords',
  prompt: 'planner',
} as const;

const versioned = <T>(asset: PublishedContent<T> | null): VersionedAsset<T> | null =>
  asset ? { name: asset.name, version: asset.version, content: asset.content } : null;

/**
 * The planner's knowledge from the asset registry: the serving versions of the tenant's catalog
 * `ops`, mapping `ops-keywords` and prompt `planner` (never drafts). Fixed names rather than "every
 * published catalog", so a plan names exactly the versions it relied on.
 */
@Injectable()
export class AssetPlanningKnowledge extends PlanningKnowledge {
  constructor(private readonly assets: PublishedAssetReader) {
    super();
  }

  async catalog(tenantId: string): Promise<VersionedAsset<CatalogContent> | null> {
    return versioned(await this.assets.getPublishedCatalog(tenantId, PLANNER_ASSET_NAMES.catalog));
  }

  async mappings(tenantId: string): Promise<VersionedAsset<MappingContent> | null> {
    return versioned(await this.assets.getPublishedMapping(tenantId, PLANNER_ASSET_NAMES.mappings));
  }

  async systemPrompt(tenantId: string): Promise<VersionedAsset<PromptContent> | null> {
    return versioned(await this.assets.getPublishedPrompt(tenantId, PLANNER_ASSET_NAMES.prompt));
  }
}
