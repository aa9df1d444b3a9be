import type {
  CatalogContent,
  HttpToolConfig,
  MappingContent,
  PromptContent,
  QueryToolConfig,
  SqlToolConfig,
  ToolAssetSpec,
} from '../asset-contents';
import type { AssetSnapshot, PublishedAsset, PublishedContent } from '../asset.types';

export function toToolSpec(snapshot: AssetSnapshot): ToolAssetSpec {
  const config = snapshot.tool_config as HttpToolConfig | SqlToolConfig;
  return {
    name: snapshot.name,
    description: snapshot.description ?? '',
    kind: snapshot.tool_type as string,
    tool_config: config,
    tool_input_schema: snapshot.tool_input_schema as Record<string, unknown>,
    tool_output_schema: (snapshot.tool_output_schema as Record<string, unknown> | undefined) ?? null,
    sample_input: (snapshot.sample_input as Record<string, unknown> | undefined) ?? null,
    // Absent means "the tool kind decides": an http tool has side effects unless its method is GET.
    ...(typeof snapshot.has_side_effects === 'boolean'
      ? { has_side_effects: snapshot.has_side_effects }
      : {}),
    ...(config?.timeout_ms ? { timeout_ms: config.timeout_ms } : {}),
    ...(typeof snapshot.source_ref === 'string' ? { source_ref: snapshot.source_ref } : {}),
    ...(snapshot.planning_hints && typeof snapshot.planning_hints === 'object'
      ? { planning_hints: snapshot.planning_hints }
      : {}),
  };
}

const objectOrNull = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * A published query asset as the spec of a `query` tool: `query_params` is its input schema (absent:
 * no input), `query_metadata.output_schema` its output schema, `query_metadata.sample_input` the
 * input of the publish-time dry run.
 */
export function toQueryToolSpec(snapshot: AssetSnapshot): ToolAssetSpec {
  const metadata = objectOrNull(snapshot.query_metadata) ?? {};
  const config: QueryToolConfig = {
    query_sql: typeof snapshot.query_sql === 'string' ? snapshot.query_sql : null,
    query_cypher: typeof snapshot.query_cypher === 'string' ? snapshot.query_cypher : null,
    query_http: (objectOrNull(snapshot.query_http) as QueryToolConfig['query_http']) ?? null,
    query_metadata: metadata,
  };
  const timeout = metadata.timeout_ms;
  return {
    name: snapshot.name,
    description: snapshot.description ?? '',
    kind: 'query',
    tool_config: config,
    tool_input_schema: objectOrNull(snapshot.query_params) ?? { type: 'object', properties: {} },
    tool_output_schema: objectOrNull(metadata.output_schema),
    sample_input: objectOrNull(metadata.sample_input),
    ...(typeof metadata.has_side_effects === 'boolean'
      ? { has_side_effects: metadata.has_side_effects }
      : {}),
    ...(typeof timeout === 'number' ? { timeout_ms: timeout } : {}),
    ...(typeof snapshot.source_ref === 'string' ? { source_ref: snapshot.source_ref } : {}),
  };
}

export function toPromptContent(snapshot: AssetSnapshot): PromptContent {
  return {
    scope: snapshot.scope as string,
    engine: snapshot.engine as string,
    template: snapshot.template as string,
    input_schema: (snapshot.input_schema as Record<string, unknown> | undefined) ?? null,
    output_contract: (snapshot.output_contract as Record<string, unknown> | undefined) ?? null,
  };
}

export const toCatalogContent = (snapshot: AssetSnapshot) => snapshot.content as CatalogContent;
export const toMappingContent = (snapshot: AssetSnapshot) => snapshot.content as MappingContent;

export function toPublishedContent<T>(
  asset: PublishedAsset,
  map: (snapshot: AssetSnapshot) => T,
): PublishedContent<T> {
  return {
    asset_id: asset.asset_id,
    tenant_id: asset.tenant_id,
    name: asset.name,
    version: asset.version,
    content: map(asset.snapshot),
  };
}
