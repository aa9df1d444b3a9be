import { ASSET_SCHEMA_PARTS, type AssetSchema } from '@app/asset-registry';

type Schema = AssetSchema;
const { timeoutMs } = ASSET_SCHEMA_PARTS;

/** The `tool_config` of an `sql` tool asset, registered with the kind. */
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
