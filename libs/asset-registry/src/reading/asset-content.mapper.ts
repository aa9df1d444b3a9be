import type {
  CatalogContent,
  HttpToolConfig,
  MappingContent,
  PromptContent,
  SqlToolConfig,
  ToolAssetSpec,
  ToolAssetType,
} from '../asset-contents';
import type { AssetSnapshot, PublishedAsset, PublishedContent } from '../asset.types';

export function toToolSpec(snapshot: AssetSnapshot): ToolAssetSpec {
  const config = snapshot.tool_config as HttpToolConfig | SqlToolConfig;
  return {
    name: snapshot.name,
    description: snapshot.description ?? '',
    tool_type: snapshot.tool_type as ToolAssetType,
    tool_config: config,
    tool_input_schema: snapshot.tool_input_schema as Record<string, unknown>,
    tool_output_schema: (snapshot.tool_output_schema as Record<string, unknown> | undefined) ?? null,
    sample_input: (snapshot.sample_input as Record<string, unknown> | undefined) ?? null,
    // Absent means "the tool kind decides": an http tool has side effects unless its method is GET.
    ...(typeof snapshot.has_side_effects === 'boolean'
      ? { has_side_effects: snapshot.has_side_effects }
      : {}),
    ...(config?.timeout_ms ? { timeout_ms: config.timeout_ms } : {}),
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
