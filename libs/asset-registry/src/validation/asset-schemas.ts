import { contentAssetType, type AssetSchema, type AssetTypeDefinition } from '../types/asset-type.registry';

type Schema = AssetSchema;

/** `secret:<NAME>` (the tenant's secret store) or `env:OPS_SECRET_<NAME>` (granted by the operator). */
export const SECRET_REF_PATTERN = '^(secret:[A-Za-z][A-Za-z0-9_-]{0,99}|env:OPS_SECRET_[A-Z0-9_]+)$';
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const jsonObject: Schema = { type: 'object' };
const nullableObject: Schema = { type: ['object', 'null'] };
const text = (maxLength = 20_000): Schema => ({ type: 'string', minLength: 1, maxLength });
const identifier: Schema = { type: 'string', minLength: 1, maxLength: 200 };
const timeoutMs: Schema = { type: 'integer', minimum: 1, maximum: 300_000 };

/** The pieces the asset types' schemas share, for the libs that register a type. */
export const ASSET_SCHEMA_PARTS = { stringMap, jsonObject, nullableObject, text, identifier, timeoutMs };

/** `internal` (the service's OPS tables) or the name of a published `source` asset. */
export const SOURCE_REF_SCHEMA: Schema = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
  description:
    'The data source the tool reads: `internal` (the OPS tables, catalog `ops`) or a published source asset name',
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

/** The asset types the asset registry owns: a catalog describes a database, a source connects to one. */
export const CATALOG_ASSET_TYPE: AssetTypeDefinition = contentAssetType(
  'catalog',
  'CatalogAsset',
  CATALOG_CONTENT_SCHEMA,
);
export const SOURCE_ASSET_TYPE: AssetTypeDefinition = contentAssetType(
  'source',
  'SourceAsset',
  SOURCE_CONTENT_SCHEMA,
);
