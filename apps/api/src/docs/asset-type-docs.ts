import type { OpenAPIObject } from '@nestjs/swagger';
import type { ParameterObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import {
  AssetTypeRegistry,
  CATALOG_ASSET_TYPE,
  SOURCE_ASSET_TYPE,
  type AssetSchema,
  type AssetTypeDefinition,
} from '@app/asset-registry';
import { QUERY_ASSET_TYPE, SQL_TOOL_CONFIG_SCHEMA } from '@app/ops';
import { MAPPING_ASSET_TYPE, PROMPT_ASSET_TYPE, RESOLVER_ASSET_TYPE } from '@app/planner';
import {
  HTTP_TOOL_CONFIG_SCHEMA,
  POLICY_ASSET_TYPE,
  SCREEN_ASSET_TYPE,
  STAGE_ASSET_TYPE,
  toolAssetType,
} from '@app/tools';

/**
 * The tool kinds with a config schema and the asset types the app's libs register on init, for the
 * OpenAPI document: it is built without starting the modules (`write-openapi.ts` runs in preview mode),
 * so it cannot read the registries. The asset-registry e2e spec checks this list against a started app.
 */
export const DOCUMENTED_TOOL_KINDS: ReadonlyMap<string, AssetSchema> = new Map([
  ['http', HTTP_TOOL_CONFIG_SCHEMA],
  ['sql', SQL_TOOL_CONFIG_SCHEMA],
]);

export const DOCUMENTED_ASSET_TYPES: readonly AssetTypeDefinition[] = [
  CATALOG_ASSET_TYPE,
  SOURCE_ASSET_TYPE,
  toolAssetType(() => DOCUMENTED_TOOL_KINDS),
  STAGE_ASSET_TYPE,
  POLICY_ASSET_TYPE,
  SCREEN_ASSET_TYPE,
  QUERY_ASSET_TYPE,
  PROMPT_ASSET_TYPE,
  MAPPING_ASSET_TYPE,
  RESOLVER_ASSET_TYPE,
];

type Properties = Record<string, SchemaObject>;

/**
 * Fills the asset schemas' open fields from the registered types: the `asset_type` values, each document
 * type's `content` schema, the tool kinds and their `tool_config` schemas, and the planning hints.
 */
export function documentAssetTypes(document: OpenAPIObject): OpenAPIObject {
  const registry = new AssetTypeRegistry();
  for (const definition of DOCUMENTED_ASSET_TYPES) registry.register(definition);
  const types = registry.types();
  const schemaOf = (type: string) =>
    registry.schemaOf(registry.definition(type)!) as { properties: Properties };
  const tool = schemaOf('tool') as {
    properties: Properties;
    allOf: Array<{ then: { properties: Properties } }>;
  };
  const contents = types
    .filter((type) => registry.definition(type)!.fields.join() === 'content')
    .map((type) => schemaOf(type).properties.content);
  for (const schema of Object.values(document.components?.schemas ?? {}) as SchemaObject[]) {
    const properties = schema.properties as Properties | undefined;
    // Every view that names an asset's type (requests, assets, versions, the demo's outcomes).
    if (properties?.asset_type?.type === 'string') properties.asset_type.enum = types;
    if (!properties?.content || !properties.tool_config) continue;
    properties.tool_type.enum = tool.properties.tool_type.enum;
    properties.tool_config.oneOf = tool.allOf.map((branch) => branch.then.properties.tool_config);
    properties.planning_hints.oneOf = [tool.properties.planning_hints];
    properties.content.oneOf = contents;
  }
  const list = document.paths['/api/assets']?.get?.parameters as ParameterObject[] | undefined;
  const typeFilter = list?.find((parameter) => parameter.name === 'type');
  if (typeFilter?.schema) (typeFilter.schema as SchemaObject).enum = types;
  return document;
}
