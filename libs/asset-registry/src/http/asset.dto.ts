import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_PAGE_OFFSET, PG_INT_MAX } from '@app/platform';
import { SPEC_FIELDS, ASSET_STATUSES, type AssetSpec, type AssetStatus } from '../asset.types';
import type { AssetType } from '../types/asset-type.registry';

/** Asset type names as the registry's owners spell them (the column holds 32 characters). */
const ASSET_TYPE_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const ASSET_TYPE_DOC =
  'A registered asset type (each lib registers the types it owns): GET /api/assets/schemas lists them with the JSON Schema of their fields';
const jsonSchemaDoc = { type: 'object', description: 'A JSON Schema', additionalProperties: true } as const;

/** The type-specific fields; which ones an asset may carry depends on its `asset_type`. */
class AssetSpecFieldsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'prompt: where the prompt is used (e.g. `planner`)',
  })
  @IsOptional()
  scope?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'prompt: template engine (e.g. `jinja2`, `mustache`)',
  })
  @IsOptional()
  engine?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'prompt: the template text',
  })
  @IsOptional()
  template?: string | null;

  @ApiPropertyOptional({ ...jsonSchemaDoc, description: 'prompt: JSON Schema of the template variables' })
  @IsOptional()
  input_schema?: Record<string, unknown> | null;

  @ApiPropertyOptional({ ...jsonSchemaDoc, description: 'prompt: JSON Schema the answer must satisfy' })
  @IsOptional()
  output_contract?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'query: SQL text (one of query_sql, query_cypher, query_http)',
  })
  @IsOptional()
  query_sql?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'query: Cypher text',
  })
  @IsOptional()
  query_cypher?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'query: HTTP request {method, url, headers, body}',
  })
  @IsOptional()
  query_http?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'query: parameter definitions',
  })
  @IsOptional()
  query_params?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'query: metadata such as {tool_type, operation}',
  })
  @IsOptional()
  query_metadata?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    description: 'tool: how the tool runs (one of the registered tool kinds)',
  })
  @IsOptional()
  tool_type?: string | null;

  @ApiPropertyOptional({ description: 'tool: configuration for its tool_type' })
  @IsOptional()
  tool_config?: Record<string, unknown> | null;

  @ApiPropertyOptional({ ...jsonSchemaDoc, description: 'tool: JSON Schema of the input (type object)' })
  @IsOptional()
  tool_input_schema?: Record<string, unknown> | null;

  @ApiPropertyOptional({ ...jsonSchemaDoc, description: 'tool: JSON Schema of the output' })
  @IsOptional()
  tool_output_schema?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'tool: example input, dry-run at publish',
  })
  @IsOptional()
  sample_input?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    description:
      'tool: whether running it changes anything. Absent: true for http tools whose method is not GET, false for sql tools. Side-effect tools are never run by the publish dry run and need a human confirmation when an agent, chat, plan or MCP client calls them.',
  })
  @IsOptional()
  has_side_effects?: boolean | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'crm_db',
    description:
      'tool and query: the data source the tool reads (seed 004 `source_ref`): `internal` (the OPS tables, whose catalog is `ops`) or the name of a published source asset, whose catalog is the published catalog with content.source {kind: "source_asset", name}. sql tools and query_sql run on that source database (read-only transaction, statement timeout, row cap, the same SQL guard over the tables of its schema). The planner plans the tool over that catalog and names the source on each plan step.',
  })
  @IsOptional()
  source_ref?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'tool: optional hints for the planner without a language model: `examples` (questions the tool answers), `keywords` (words that point at it) and `not_for` (related-looking questions it does not answer), each one list or lists per language ({"ko": [...], "en": [...]}), and `intent`.',
  })
  @IsOptional()
  planning_hints?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    description: 'assets whose fields are one document (catalog, mapping, ...): the content for the type',
  })
  @IsOptional()
  content?: Record<string, unknown> | null;
}

/** What a create and an update both accept: the spec fields, the description and the tags. */
class AssetEditableFieldsDto extends AssetSpecFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Servers of an environment' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 64, { each: true })
  tags?: string[];
}

export class CreateAssetRequestDto extends AssetEditableFieldsDto {
  @ApiProperty({ type: String, description: ASSET_TYPE_DOC })
  @IsString()
  @Matches(ASSET_TYPE_NAME)
  asset_type!: AssetType;

  @ApiProperty({ example: 'server_inventory', description: 'Unique per tenant and type' })
  @IsString()
  @Length(1, 200)
  name!: string;
}

export class UpdateAssetRequestDto extends AssetEditableFieldsDto {}

export class PublishAssetRequestDto {
  @ApiPropertyOptional({
    description: 'Publish a tool despite breaking changes to its contract',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;

  @ApiPropertyOptional({
    description: 'Why this version (kept in the history)',
    example: 'drop the dev environment',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  note?: string;
}

export class RollbackAssetRequestDto extends PublishAssetRequestDto {
  @ApiProperty({ description: 'The version whose snapshot to publish again', example: 1 })
  @IsInt()
  @Min(1)
  @Max(PG_INT_MAX)
  version!: number;
}

export class ListAssetsQueryDto {
  @ApiPropertyOptional({ type: String, description: ASSET_TYPE_DOC })
  @IsOptional()
  @IsString()
  @Matches(ASSET_TYPE_NAME)
  type?: AssetType;

  @ApiPropertyOptional({ enum: ASSET_STATUSES })
  @IsOptional()
  @IsIn(ASSET_STATUSES)
  status?: AssetStatus;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  tag?: string;

  @ApiPropertyOptional({ description: 'Exact name' })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional({ description: 'Substring of the name or description' })
  @IsOptional()
  @IsString()
  search?: string;

  @ApiPropertyOptional({ default: 50, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_PAGE_OFFSET)
  offset?: number;
}

/** A version number of at most 9 digits (so it always fits an int4), `draft` or `published`. */
const VERSION_REF = /^([1-9]\d{0,8}|0|draft|published)$/;

export class AssetDiffQueryDto {
  @ApiProperty({ description: 'A version number, `published` or `draft`', example: '1' })
  @Matches(VERSION_REF, { message: 'from must be a version number, published or draft' })
  from!: string;

  @ApiProperty({ description: 'A version number, `published` or `draft`', example: 'draft' })
  @Matches(VERSION_REF, { message: 'to must be a version number, published or draft' })
  to!: string;
}

export class CatalogSyncRequestDto {
  @ApiProperty({ example: 'ops_catalog', description: 'Catalog asset to create, or whose draft to update' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({ description: 'A published source asset; default: the service database' })
  @IsOptional()
  @IsString()
  source?: string;

  @ApiPropertyOptional({ default: 'public' })
  @IsOptional()
  @IsString()
  @Length(1, 63)
  schema?: string;

  @ApiPropertyOptional({ type: [String], description: 'Only these tables' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tables?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  exclude_tables?: string[];

  @ApiPropertyOptional({
    default: 20,
    description: 'Record enum_values for text columns with at most this many distinct values (0: off)',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(200)
  enum_max_distinct?: number;

  @ApiPropertyOptional({ default: 100000, description: 'Rows read per column when looking for enum values' })
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(10_000_000)
  enum_sample_rows?: number;
}

export function specFromBody(body: AssetSpecFieldsDto): AssetSpec {
  const spec: AssetSpec = {};
  for (const field of SPEC_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined) spec[field] = value;
  }
  return spec;
}

export function parseVersionRef(ref: string): number | 'draft' | 'published' {
  return ref === 'draft' || ref === 'published' ? ref : Number(ref);
}
