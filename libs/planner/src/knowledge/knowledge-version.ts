import { createHash } from 'node:crypto';
import type { ToolDefinition } from '@app/tools';

/** A published asset as a plan names it. */
export interface KnowledgeAssetRef {
  name: string;
  version: number;
}

/** What a plan's knowledge version is made of: the published state the planner read, nothing else. */
export interface KnowledgeVersionParts {
  /** The tools planned over (their descriptions, input schemas and planning hints). */
  tools: ReadonlyArray<ToolDefinition>;
  mappings: KnowledgeAssetRef | null;
  /** The catalog of each data source the tools read (null: none published for it). */
  catalogs: ReadonlyArray<{ source: string; catalog: KnowledgeAssetRef | null }>;
  /** The tenant's published resolvers (what its people call its items). */
  resolvers: ReadonlyArray<KnowledgeAssetRef>;
}

/** Version 1 of the key's recipe: a change to what goes into it changes this prefix. */
const KNOWLEDGE_VERSION_PREFIX = 'kv1';

const digest = (text: string, length: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * A tool as planning sees it: name, data source, asset version and a digest of its description, input schema
 * and planning hints. The digest stands for built-in tools, whose version is the code they ship with, and catches an
 * asset whose content differs under one version number (never, but the key must not depend on it). Cached on
 * the schema object, which the registry shares between listings.
 */
const TOOL_DIGESTS = new WeakMap<object, { description: string; hints: unknown; digest: string }>();
export function toolKnowledgeDigest(tool: ToolDefinition): string {
  const cached = TOOL_DIGESTS.get(tool.input_schema);
  if (cached && cached.description === tool.description && cached.hints === tool.planning_hints)
    return cached.digest;
  const text = `${tool.description}\n${JSON.stringify(tool.planning_hints ?? null)}\n${JSON.stringify(tool.input_schema)}`;
  const computed = digest(text, 12);
  if (typeof tool.input_schema === 'object' && tool.input_schema !== null)
    TOOL_DIGESTS.set(tool.input_schema, {
      description: tool.description,
      hints: tool.planning_hints,
      digest: computed,
    });
  return computed;
}

const ref = (asset: KnowledgeAssetRef | null): string => (asset ? `${asset.name}@${asset.version}` : '-');

/**
 * The one key of the knowledge a plan was made with: the tenant's tools as planned over (with their hints),
 * its keyword mappings, the catalog of each source and its resolvers, each by published version. Stable
 * across processes and restarts (sha-256 of a canonical, sorted listing); the same published state gives the
 * same key, any publish, rollback or archive of one of them a new one. The trained classifier and every
 * cached planning state are keyed by it, and every plan and stored run carries it (`knowledge_version`).
 */
export function knowledgeVersion(parts: KnowledgeVersionParts): string {
  const tools = parts.tools
    .map(
      (tool) => `${tool.name}:${tool.source_ref ?? '-'}:${tool.version ?? '-'}:${toolKnowledgeDigest(tool)}`,
    )
    .sort();
  const catalogs = parts.catalogs.map((c) => `${c.source}=${ref(c.catalog)}`).sort();
  const resolvers = parts.resolvers.map(ref).sort();
  const canonical = [
    `tools ${tools.join(',')}`,
    `mappings ${ref(parts.mappings)}`,
    `catalogs ${catalogs.join(',')}`,
    `resolvers ${resolvers.join(',')}`,
  ].join('\n');
  return `${KNOWLEDGE_VERSION_PREFIX}-${digest(canonical, 16)}`;
}

const CONTENT_DIGESTS = new WeakMap<object, string>();
function contentDigest(content: unknown): string {
  const cached = typeof content === 'object' && content !== null ? CONTENT_DIGESTS.get(content) : undefined;
  if (cached) return cached;
  const computed = digest(JSON.stringify(content), 12);
  if (typeof content === 'object' && content !== null) CONTENT_DIGESTS.set(content, computed);
  return computed;
}

/**
 * The key of knowledge given as content rather than as published versions (evaluation, benchmarks, tests
 * that hand the planner a catalog and mappings): the same recipe over digests of the content.
 */
export function contentKnowledgeVersion(
  tools: ReadonlyArray<ToolDefinition>,
  mappings: unknown,
  catalog: unknown,
): string {
  const asRef = (content: unknown): KnowledgeAssetRef | null =>
    content ? { name: `content:${contentDigest(content)}`, version: 0 } : null;
  return knowledgeVersion({
    tools,
    mappings: asRef(mappings),
    catalogs: [{ source: 'content', catalog: asRef(catalog) }],
    resolvers: [],
  });
}
