import type { AssetType } from '@app/platform';

type Schema = Record<string, unknown>;

/** `secret:<NAME>` (the tenant's secret store) or `env:OPS_SECRET_<NAME>` (granted by the operator). */
export const SECRET_REF_PATTERN = '^(secret:[A-Za-z][A-Za-z0-9_-]{0,99}|env:OPS_SECRET_[A-Z0-9_]+)$';
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const jsonObject: Schema = { type: 'object' };
const nullableObject: Schema = { type: ['object', 'null'] };
const text = (maxLength = 20_000): Schema => ({ type: 'string', minLength: 1, maxLength });
const identifier: Schema = { type: 'string', minLength: 1, maxLength: 200 };
const timeoutMs: Schema = { type: 'integer', minimum: 1, maximum: 300_000 };

export const HTTP_TOOL_CONFIG_SCHEMA: Schema = {
  title: 'HttpToolConfig',
  type: 'object',
  additionalProperties: false,
  required: ['method', 'url'],
  properties: {
    method: { enum: HTTP_METHODS },
    url: {
      type: 'string',
      maxLength: 2048,
      pattern: '^https?://\\S+$',
      description: 'http(s) URL template; `{{input.x}}`, `{{context.user_id}}`, `{{secret}}` placeholders',
    },
    headers: stringMap,
    query: stringMap,
    body: { description: 'JSON body template' },
    secret_ref: { type: ['string', 'null'], pattern: SECRET_REF_PATTERN },
    response_mapping: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    timeout_ms: timeoutMs,
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 100 * 1024 * 1024 },
  },
};

export const SQL_TOOL_CONFIG_SCHEMA: Schema = {
  title: 'SqlToolConfig',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      maxLength: 20_000,
      pattern: '^\\s*([Ss][Ee][Ll][Ee][Cc][Tt]|[Ww][Ii][Tt][Hh])\\b',
      description: 'One read-only SELECT (or WITH ... SELECT) with `:name` parameters bound from the input',
    },
    row_limit: { type: 'integer', minimum: 1, maximum: 100_000 },
    timeout_ms: timeoutMs,
  },
};

/** `internal` (the service's OPS tables) or the name of a published `source` asset. */
export const SOURCE_REF_SCHEMA: Schema = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
  description:
    'The data source the tool reads: `internal` (the OPS tables, catalog `ops`) or a published source asset name',
};

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

const TOOL_SPEC_SCHEMA: Schema = {
  title: 'ToolAsset',
  type: 'object',
  required: ['tool_type', 'tool_config', 'tool_input_schema'],
  properties: {
    tool_type: { enum: ['http', 'sql'] },
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
  allOf: [
    {
      if: { required: ['tool_type'], properties: { tool_type: { const: 'http' } } },
      then: { properties: { tool_config: HTTP_TOOL_CONFIG_SCHEMA } },
    },
    {
      if: { required: ['tool_type'], properties: { tool_type: { const: 'sql' } } },
      then: { properties: { tool_config: SQL_TOOL_CONFIG_SCHEMA } },
    },
  ],
};

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

const QUERY_HTTP_SCHEMA: Schema = {
  type: ['object', 'null'],
  required: ['method', 'url'],
  properties: {
    method: { enum: HTTP_METHODS },
    url: { type: 'string', pattern: '^https?://\\S+$' },
    headers: stringMap,
    body: {},
  },
};

const QUERY_SPEC_SCHEMA: Schema = {
  title: 'QueryAsset',
  type: 'object',
  properties: {
    query_sql: { type: ['string', 'null'], minLength: 1, maxLength: 100_000 },
    query_cypher: { type: ['string', 'null'], minLength: 1, maxLength: 100_000 },
    query_http: QUERY_HTTP_SCHEMA,
    query_params: nullableObject,
    query_metadata: nullableObject,
    source_ref: SOURCE_REF_SCHEMA,
  },
  anyOf: [
    { required: ['query_sql'], properties: { query_sql: { type: 'string' } } },
    { required: ['query_cypher'], properties: { query_cypher: { type: 'string' } } },
    { required: ['query_http'], properties: { query_http: { type: 'object' } } },
  ],
};

export const CATALOG_CONTENT_SCHEMA: Schema = {
  title: 'CatalogContent',
  type: 'object',
  additionalProperties: false,
  required: ['source', 'tables'],
  properties: {
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { enum: ['internal', 'source_asset'] },
        name: identifier,
        schema: identifier,
        synced_at: { type: 'string' },
      },
      if: { properties: { kind: { const: 'source_asset' } } },
      then: { required: ['name'] },
    },
    tables: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'columns'],
        properties: {
          name: identifier,
          description: { type: ['string', 'null'] },
          aliases: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 200 } },
          primary_key: { type: 'array', items: { type: 'string' } },
          columns: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'type'],
              properties: {
                name: identifier,
                type: identifier,
                description: { type: ['string', 'null'] },
                nullable: { type: 'boolean' },
                primary_key: { type: 'boolean' },
                enum_values: { type: ['array', 'null'], items: { type: 'string' } },
                aliases: { type: 'array', items: { type: 'string' } },
              },
            },
          },
          references: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['columns', 'table', 'referenced_columns'],
              properties: {
                columns: { type: 'array', minItems: 1, items: { type: 'string' } },
                table: identifier,
                referenced_columns: { type: 'array', minItems: 1, items: { type: 'string' } },
              },
            },
          },
        },
      },
    },
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

export const SOURCE_CONTENT_SCHEMA: Schema = {
  title: 'SourceContent',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'connection'],
  properties: {
    kind: { enum: ['postgres'] },
    schema: identifier,
    connection: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url_ref: { type: 'string', pattern: SECRET_REF_PATTERN },
        host: identifier,
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        database: identifier,
        user: identifier,
        password_ref: { type: 'string', pattern: SECRET_REF_PATTERN },
        ssl: { type: 'boolean' },
      },
      anyOf: [{ required: ['url_ref'] }, { required: ['host', 'database'] }],
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

const withContent = (title: string, content: Schema): Schema => ({
  title,
  type: 'object',
  required: ['content'],
  properties: { content },
});

/** The JSON Schema of each asset type's type-specific fields, checked on every save. */
export const ASSET_SPEC_SCHEMAS: Record<AssetType, Schema> = {
  prompt: PROMPT_SPEC_SCHEMA,
  query: QUERY_SPEC_SCHEMA,
  tool: TOOL_SPEC_SCHEMA,
  catalog: withContent('CatalogAsset', CATALOG_CONTENT_SCHEMA),
  mapping: withContent('MappingAsset', MAPPING_CONTENT_SCHEMA),
  policy: withContent('PolicyAsset', POLICY_CONTENT_SCHEMA),
  source: withContent('SourceAsset', SOURCE_CONTENT_SCHEMA),
  resolver: withContent('ResolverAsset', RESOLVER_CONTENT_SCHEMA),
  screen: withContent('ScreenAsset', SCREEN_CONTENT_SCHEMA),
  stage: withContent('StageAsset', STAGE_CONTENT_SCHEMA),
};

/** Asset names: tools are called by name (LLM function calling), so theirs are stricter. */
export const ASSET_NAME_PATTERNS: Record<'tool' | 'default', RegExp> = {
  tool: /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
  default: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/,
};
