import {
  ASSET_SCHEMA_PARTS,
  SOURCE_REF_SCHEMA,
  type AssetSchema,
  type AssetTypeDefinition,
} from '@app/asset-registry';
import { HTTP_METHODS } from '@app/tools';

type Schema = AssetSchema;
const { stringMap, nullableObject } = ASSET_SCHEMA_PARTS;

const QUERY_HTTP_SCHEMA: Schema = {
  type: ['object', 'null'],
  required: ['method', 'url'],
  properties: {
    method: { enum: [...HTTP_METHODS] },
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

/** The `query` asset type (the query registry): a published query runs as a `query` tool. */
export const QUERY_ASSET_TYPE: AssetTypeDefinition = {
  type: 'query',
  fields: ['query_sql', 'query_cypher', 'query_http', 'query_params', 'query_metadata', 'source_ref'],
  schema: QUERY_SPEC_SCHEMA,
};
