import { Injectable } from '@nestjs/common';
import type { CatalogContent, MappingContent, PromptContent, PublishedContent } from '@app/asset-registry';
import { INTERNAL_CATALOG_NAME, INTERNAL_SOURCE_REF, PublishedAssetReader } from '@app/asset-registry';
import { PlanningKnowledge, PublishedResolvers, VersionedAsset } from './planning-knowledge';

/** The asset names the planner reads; the demo loader publishes the first two for the demo tenant. */
export const PLANNER_ASSET_NAMES = {
  /** The catalog of the internal source (`source_ref: internal`, the built-in OPS tools). */
  catalog: INTERNAL_CATALOG_NAME,
  mappings: 'ops-keywords',
  prompt: 'planner',
} as const;

const versioned = <T>(asset: PublishedContent<T> | null): VersionedAsset<T> | null =>
  asset ? { name: asset.name, version: asset.version, content: asset.content } : null;

/**
 * The published catalog that describes a source (`load_catalog_for_source` of seed 004): among the
 * catalogs whose `content.source` is `{ kind: "source_asset", name: source }` (what
 * `POST /ops/assets/catalog/sync { source }` writes), the one named like the source, else the first by
 * name. The internal source's catalog is the catalog `ops`, whatever its content says.
 */
export function catalogForSource<T extends { name: string; content: CatalogContent }>(
  catalogs: readonly T[],
  source: string,
): T | null {
  if (source === INTERNAL_SOURCE_REF) return catalogs.find((c) => c.name === INTERNAL_CATALOG_NAME) ?? null;
  const candidates = catalogs
    .filter((c) => c.content?.source?.kind === 'source_asset' && c.content.source.name === source)
    .sort((a, b) => Number(b.name === source) - Number(a.name === source) || a.name.localeCompare(b.name));
  return candidates[0] ?? null;
}

/**
 * The planner's knowledge from the asset registry: the serving versions of the tenant's catalog
 * `ops` (the internal source's), the catalog of each other source a tool reads, the mapping
 * `ops-keywords` and the prompt `planner` (never drafts). Reads go through the registry's cache, dropped on
 * every publish. A plan names exactly the versions it relied on.
 */
@Injectable()
export class AssetPlanningKnowledge extends PlanningKnowledge {
  constructor(private readonly assets: PublishedAssetReader) {
    super();
  }

  async catalog(tenantId: string): Promise<VersionedAsset<CatalogContent> | null> {
    return versioned(await this.assets.getPublishedCatalog(tenantId, PLANNER_ASSET_NAMES.catalog));
  }

  async sourceCatalogs(
    tenantId: string,
    sources: string[],
  ): Promise<Map<string, VersionedAsset<CatalogContent>>> {
    const found = new Map<string, VersionedAsset<CatalogContent>>();
    const wanted = sources.filter((s) => s !== INTERNAL_SOURCE_REF);
    if (!wanted.length) return found;
    const catalogs = await this.assets.listPublishedCatalogs(tenantId);
    for (const source of wanted) {
      const catalog = versioned(catalogForSource(catalogs, source));
      if (catalog) found.set(source, catalog);
    }
    return found;
  }

  async mappings(tenantId: string): Promise<VersionedAsset<MappingContent> | null> {
    return versioned(await this.assets.getPublishedMapping(tenantId, PLANNER_ASSET_NAMES.mappings));
  }

  async systemPrompt(tenantId: string): Promise<VersionedAsset<PromptContent> | null> {
    return versioned(await this.assets.getPublishedPrompt(tenantId, PLANNER_ASSET_NAMES.prompt));
  }

  override async resolvers(tenantId: string): Promise<PublishedResolvers> {
    const resolvers = await this.assets.listPublishedResolvers(tenantId);
    return {
      rules: [...resolvers]
        .sort((a, b) => a.name.localeCompare(b.name))
        .flatMap((resolver) => resolver.content?.rules ?? []),
      versions: resolvers.map((resolver) => ({ name: resolver.name, version: resolver.version })),
    };
  }
}
