import type { CatalogContent } from '@app/asset-registry';
import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import { CatalogIndex, type SourcedTool } from './catalog-index';
import type { PlanningKnowledge, VersionedAsset } from './planning-knowledge';

/** One data source as the planner sees it: its catalog (null: none published) and the tools reading it. */
export interface SourceCatalog {
  source: string;
  catalog: VersionedAsset<CatalogContent> | null;
  tools: string[];
}

export interface SourcedCatalogs {
  /** Every source's catalog in one index; `forTool(name)` is the catalog a tool is planned over. */
  index: CatalogIndex;
  /** The internal source first (when a tool reads it or its catalog is published), then by name. */
  sources: SourceCatalog[];
}

/**
 * The catalogs of the sources the tools read: the internal one (`internal`: the catalog `ops`, already
 * read by the caller) and, for every other `source_ref`, the catalog published for that source.
 */
export async function loadSourceCatalogs(
  knowledge: PlanningKnowledge,
  tenantId: string,
  internal: VersionedAsset<CatalogContent> | null,
  tools: ReadonlyArray<SourcedTool>,
): Promise<SourcedCatalogs> {
  const toolsBySource = new Map<string, string[]>();
  for (const tool of tools) {
    if (!tool.source_ref) continue;
    toolsBySource.set(tool.source_ref, [...(toolsBySource.get(tool.source_ref) ?? []), tool.name]);
  }
  const others = [...toolsBySource.keys()].filter((s) => s !== INTERNAL_SOURCE_REF).sort();
  const found = others.length
    ? await knowledge.sourceCatalogs(tenantId, others)
    : new Map<string, VersionedAsset<CatalogContent>>();
  const sources: SourceCatalog[] = [];
  if (internal || toolsBySource.has(INTERNAL_SOURCE_REF))
    sources.push({
      source: INTERNAL_SOURCE_REF,
      catalog: internal,
      tools: toolsBySource.get(INTERNAL_SOURCE_REF) ?? [],
    });
  for (const source of others)
    sources.push({ source, catalog: found.get(source) ?? null, tools: toolsBySource.get(source) ?? [] });
  const contents = new Map<string, CatalogContent | null>(
    sources.map((s) => [s.source, s.catalog?.content ?? null]),
  );
  if (!contents.has(INTERNAL_SOURCE_REF)) contents.set(INTERNAL_SOURCE_REF, null);
  return { index: CatalogIndex.forSources(contents, tools), sources };
}
