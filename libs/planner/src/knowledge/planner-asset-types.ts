import {
  ASSET_SCHEMA_PARTS,
  contentAssetType,
  type AssetSchema,
  type AssetTypeDefinition,
} from '@app/asset-registry';

type Schema = AssetSchema;
const { nullableObject, text, identifier } = ASSET_SCHEMA_PARTS;

const PROMPT_SPEC_SCHEMA: Schema = {
  title: 'PromptAsset',
  type: 'object',
  required: ['scope', 'engine', 'template'],
  properties: {
    scope: text(200),
    engine: text(200),
    template: text(200_000),
    input_schema: nullableObject,
    output_contract: nullableObject,
  },
};

export const MAPPING_CONTENT_SCHEMA: Schema = {
  title: 'MappingContent',
  type: 'object',
  additionalProperties: false,
  required: ['mappings'],
  properties: {
    mappings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['keyword', 'value', 'kind'],
        properties: {
          keyword: text(500),
          value: text(2000),
          kind: { enum: ['metric', 'filter', 'tool', 'aggregation', 'other'] },
          field: identifier,
          description: { type: 'string' },
        },
        if: { required: ['kind'], properties: { kind: { const: 'filter' } } },
        then: { required: ['field'] },
      },
    },
    examples: {
      type: 'array',
      maxItems: 20_000,
      description: 'Questions labelled with the tools that answer them ([] for none)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'tools'],
        properties: {
          text: text(2000),
          tools: {
            type: 'array',
            maxItems: 20,
            items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' },
          },
        },
      },
    },
  },
};

export const RESOLVER_CONTENT_SCHEMA: Schema = {
  title: 'ResolverContent',
  type: 'object',
  additionalProperties: false,
  required: ['rules'],
  properties: {
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['match_type', 'pattern', 'field', 'value'],
        properties: {
          match_type: { enum: ['exact', 'prefix', 'contains', 'regex'] },
          pattern: text(1000),
          field: identifier,
          value: text(2000),
          description: { type: 'string' },
        },
        if: { required: ['match_type'], properties: { match_type: { const: 'regex' } } },
        then: { properties: { pattern: { format: 'regex' } } },
      },
    },
  },
};

/**
 * The planning knowledge's asset types: prompts, keyword mappings with labelled examples, and resolvers
 * (what users call things -> canonical values).
 */
export const PROMPT_ASSET_TYPE: AssetTypeDefinition = {
  type: 'prompt',
  fields: ['scope', 'engine', 'template', 'input_schema', 'output_contract'],
  schema: PROMPT_SPEC_SCHEMA,
};
export const MAPPING_ASSET_TYPE = contentAssetType('mapping', 'MappingAsset', MAPPING_CONTENT_SCHEMA);
export const RESOLVER_ASSET_TYPE = contentAssetType('resolver', 'ResolverAsset', RESOLVER_CONTENT_SCHEMA);
