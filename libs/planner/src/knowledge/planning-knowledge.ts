import type { CatalogContent, MappingContent, PromptContent, ResolverRule } from '@app/asset-registry';

/** Published content of one asset with the version it came from. */
export interface VersionedAsset<T> {
  name: string;
  version: number;
  content: T;
}

/**
 * What the planner knows about a tenant's data besides the tools: the published catalog, keyword
 * mappings and planner system prompt. Bound to the asset registry by the application; null means
 * nothing is published.
 */
export abstract class PlanningKnowledge {
  /** The catalog of the internal source (the service's OPS tables): the published catalog `ops`. */
  abstract catalog(tenantId: string): Promise<VersionedAsset<CatalogContent> | null>;
  /**
   * The catalog of each named source other than `internal` (a published `source` asset): the published
   * catalog whose `content.source` is `{ kind: "source_asset", name: <source> }`. Sources without one are
   * left out of the map.
   */
  abstract sourceCatalogs(
    tenantId: string,
    sources: string[],
  ): Promise<Map<string, VersionedAsset<CatalogContent>>>;
  abstract mappings(tenantId: string): Promise<VersionedAsset<MappingContent> | null>;
  abstract systemPrompt(tenantId: string): Promise<VersionedAsset<PromptContent> | null>;
  /**
   * The tenant's published resolvers: their rules (what its people call its items: a question using such a
   * word keeps it for the tool that resolves it) and their names and versions (part of the knowledge
   * version), read together. None unless bound.
   */
  resolvers(tenantId: string): Promise<PublishedResolvers> {
    void tenantId;
    return Promise.resolve({ rules: [], versions: [] });
  }
}

/** The rules of a tenant's published resolvers and the resolvers' names and versions. */
export interface PublishedResolvers {
  rules: ResolverRule[];
  versions: Array<{ name: string; version: number }>;
}

export interface PlanningKnowledgeEntry {
  catalog?: VersionedAsset<CatalogContent> | null;
  /** Catalogs of other sources, by source name. */
  sourceCatalogs?: Record<string, VersionedAsset<CatalogContent>>;
  mappings?: VersionedAsset<MappingContent> | null;
  prompt?: VersionedAsset<PromptContent> | null;
  aliases?: ResolverRule[];
  /** The resolvers the aliases stand for, by name and version. */
  resolvers?: Array<{ name: string; version: number }>;
}

/** Knowledge held in memory, per tenant or for every tenant; used until an asset source is bound. */
export class InMemoryPlanningKnowledge extends PlanningKnowledge {
  private readonly byTenant = new Map<string, PlanningKnowledgeEntry>();
  private shared: PlanningKnowledgeEntry = {};

  /** Sets a tenant's knowledge, or every tenant's when tenantId is null. */
  set(tenantId: string | null, entry: PlanningKnowledgeEntry): void {
    if (tenantId === null) this.shared = { ...entry };
    else this.byTenant.set(tenantId, { ...entry });
  }

  clear(): void {
    this.byTenant.clear();
    this.shared = {};
  }

  catalog(tenantId: string): Promise<VersionedAsset<CatalogContent> | null> {
    return Promise.resolve(this.entry(tenantId).catalog ?? null);
  }

  sourceCatalogs(tenantId: string, sources: string[]): Promise<Map<string, VersionedAsset<CatalogContent>>> {
    const known = this.entry(tenantId).sourceCatalogs ?? {};
    return Promise.resolve(new Map(sources.filter((s) => known[s]).map((s) => [s, known[s]])));
  }

  mappings(tenantId: string): Promise<VersionedAsset<MappingContent> | null> {
    return Promise.resolve(this.entry(tenantId).mappings ?? null);
  }

  systemPrompt(tenantId: string): Promise<VersionedAsset<PromptContent> | null> {
    return Promise.resolve(this.entry(tenantId).prompt ?? null);
  }

  override resolvers(tenantId: string): Promise<PublishedResolvers> {
    const entry = this.entry(tenantId);
    return Promise.resolve({ rules: entry.aliases ?? [], versions: entry.resolvers ?? [] });
  }

  private entry(tenantId: string): PlanningKnowledgeEntry {
    return this.byTenant.get(tenantId) ?? this.shared;
  }
}
