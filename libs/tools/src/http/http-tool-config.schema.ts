import { ASSET_SCHEMA_PARTS, SECRET_REF_PATTERN, type AssetSchema } from '@app/asset-registry';
import { HTTP_METHODS } from './http-tool-config.util';

type Schema = AssetSchema;
const { stringMap, timeoutMs } = ASSET_SCHEMA_PARTS;

/** The `tool_config` of an `http` tool asset, registered with the kind. */
export const HTTP_TOOL_CONFIG_SCHEMA: Schema = {
  title: 'HttpToolConfig',
  type: 'object',
  additionalProperties: false,
  required: ['method', 'url'],
  properties: {
    method: { enum: [...HTTP_METHODS] },
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
