import {
  ASSET_SCHEMA_PARTS,
  contentAssetType,
  SOURCE_REF_SCHEMA,
  TOOL_NAME_PATTERN,
  type AssetSchema,
  type AssetTypeDefinition,
} from '@app/asset-registry';

type Schema = AssetSchema;
const { jsonObject, nullableObject, text, identifier } = ASSET_SCHEMA_PARTS;

/** Hint texts: one list, or lists per language code. */
const HINT_TEXTS_SCHEMA: Schema = {
  anyOf: [
    { type: 'array', maxItems: 200, items: text(500) },
    {
      type: 'object',
      propertyNames: { pattern: '^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$' },
      maxProperties: 20,
      additionalProperties: { type: 'array', maxItems: 200, items: text(500) },
    },
  ],
};

/** A tool's planning hints (see PlanningHints). */
export const PLANNING_HINTS_SCHEMA: Schema = {
  title: 'PlanningHints',
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    examples: { ...HINT_TEXTS_SCHEMA, description: 'Questions the tool answers (per language or one list)' },
    keywords: { ...HINT_TEXTS_SCHEMA, description: 'Words or short phrases that point at the tool' },
    not_for: {
      ...HINT_TEXTS_SCHEMA,
      description: 'Questions that look related but the tool does not answer',
    },
    intent: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      description: "The plan's intent when the tool leads it",
    },
  },
};

/**
 * The fields of a `tool` asset, its `tool_config` checked against the config schema of its `tool_type`
 * (each kind registers its own with `ToolKindRegistry`).
 */
export function toolSpecSchema(configSchemas: ReadonlyMap<string, Schema>): Schema {
  const kinds = [...configSchemas.keys()].sort();
  return {
    title: 'ToolAsset',
    type: 'object',
    required: ['tool_type', 'tool_config', 'tool_input_schema'],
    properties: {
      tool_type: { enum: kinds },
      tool_config: { type: 'object' },
      tool_input_schema: {
        type: 'object',
        required: ['type'],
        properties: { type: { const: 'object' } },
        description: 'JSON Schema of the tool input (an object)',
      },
      tool_output_schema: { ...nullableObject, description: 'JSON Schema of the tool output' },
      sample_input: { ...nullableObject, description: 'Example input; publishing dry-runs the tool with it' },
      has_side_effects: { type: 'boolean' },
      source_ref: SOURCE_REF_SCHEMA,
      planning_hints: PLANNING_HINTS_SCHEMA,
    },
    allOf: kinds.map((kind) => ({
      if: { required: ['tool_type'], properties: { tool_type: { const: kind } } },
      then: { properties: { tool_config: configSchemas.get(kind) } },
    })),
  };
}

/** The `tool` asset type over the tool kinds registered so far (read when a tool asset is first checked). */
export function toolAssetType(configSchemas: () => ReadonlyMap<string, Schema>): AssetTypeDefinition {
  return {
    type: 'tool',
    fields: [
      'tool_type',
      'tool_config',
      'tool_input_schema',
      'tool_output_schema',
      'sample_input',
      'has_side_effects',
      'source_ref',
      'planning_hints',
    ],
    schema: () => toolSpecSchema(configSchemas()),
    namePattern: TOOL_NAME_PATTERN,
  };
}

/** `tool_access` policy settings: per tool name or `*` pattern, who may run it and within what limits. */
export const TOOL_ACCESS_SETTINGS_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['tools'],
  properties: {
    tools: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9_*-]{1,64}$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          roles: {
            type: 'array',
            uniqueItems: true,
            items: { enum: ['reader', 'operator', 'admin', 'service'] },
          },
          requires_confirmation: { type: 'boolean' },
          rate_per_minute: { type: 'integer', minimum: 1, maximum: 100_000 },
          max_concurrent: { type: 'integer', minimum: 1, maximum: 1000 },
        },
      },
    },
  },
};

export const POLICY_CONTENT_SCHEMA: Schema = {
  title: 'PolicyContent',
  type: 'object',
  additionalProperties: false,
  required: ['policy_type', 'settings'],
  properties: { policy_type: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' }, settings: jsonObject },
  if: { required: ['policy_type'], properties: { policy_type: { const: 'tool_access' } } },
  then: { properties: { settings: TOOL_ACCESS_SETTINGS_SCHEMA } },
};

export const SCREEN_CONTENT_SCHEMA: Schema = {
  title: 'ScreenContent',
  type: 'object',
  additionalProperties: false,
  required: ['components'],
  properties: {
    title: { type: 'string', maxLength: 500 },
    layout: jsonObject,
    components: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type'],
        properties: { id: identifier, type: identifier, props: jsonObject },
      },
    },
  },
};

const stageStep: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['tool_name'],
  properties: {
    id: identifier,
    tool_name: { type: 'string', minLength: 1, maxLength: 200 },
    input: jsonObject,
    depends_on: { type: 'array', items: identifier, maxItems: 100 },
    timeout_ms: { type: 'integer', minimum: 10, maximum: 600000 },
  },
};

/** A published stage: stages run in order (steps in parallel), parameters checked by params_schema. */
export const STAGE_CONTENT_SCHEMA: Schema = {
  title: 'StageContent',
  type: 'object',
  additionalProperties: false,
  required: ['stages'],
  properties: {
    params_schema: jsonObject,
    timeout_ms: { type: 'integer', minimum: 100, maximum: 600000 },
    stages: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['stage_name', 'tools'],
        properties: {
          stage_name: identifier,
          tools: { type: 'array', minItems: 1, maxItems: 100, items: stageStep },
          output_mapping: jsonObject,
          on_failure: { enum: ['stop', 'continue'] },
        },
      },
    },
  },
};

/** Policies (`tool_access` is the registry's), screens (components bound to tools) and stages. */
export const POLICY_ASSET_TYPE = contentAssetType('policy', 'PolicyAsset', POLICY_CONTENT_SCHEMA);
export const SCREEN_ASSET_TYPE = contentAssetType('screen', 'ScreenAsset', SCREEN_CONTENT_SCHEMA);
export const STAGE_ASSET_TYPE = contentAssetType('stage', 'StageAsset', STAGE_CONTENT_SCHEMA);
