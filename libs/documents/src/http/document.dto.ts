import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  CHUNK_TYPES,
  DOCUMENT_FORMATS,
  DOCUMENT_STATUSES,
  FUSION_METHODS,
  SEARCH_TYPES,
} from '../documents.types';
import { MAX_PAGE_OFFSET } from '@app/platform';
import type { ChunkType, DocumentFormat, DocumentStatus, FusionMethod, SearchType } from '../documents.types';

/** Multipart form fields arrive as strings; metadata may be sent as a JSON string there. */
const parseJsonObject = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

export class DocumentContentRequestDto {
  @ApiPropertyOptional({
    description: 'Required for JSON bodies; defaults to the uploaded file name for multipart.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  filename?: string;

  @ApiPropertyOptional({
    description: 'The document content (JSON bodies). Text, or base64 with content_encoding.',
  })
  // Absent is allowed (multipart sends a file instead); null is not a document.
  @ValidateIf((_body, value) => value !== undefined)
  @IsString()
  content?: string;

  @ApiPropertyOptional({ example: 'text/markdown' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  content_type?: string;

  @ApiPropertyOptional({ enum: ['utf8', 'base64'], default: 'utf8' })
  @IsOptional()
  @IsIn(['utf8', 'base64'])
  content_encoding?: 'utf8' | 'base64';

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { team: 'sre' } })
  @IsOptional()
  @Transform(parseJsonObject)
  @IsObject()
  metadata?: Record<string, unknown>;
}

/**
 * The documented shape of an upload: a multipart `file` part with the same optional fields, or JSON
 * (filename and content). Validation uses DocumentContentRequestDto; the file reaches the controller apart.
 */
export class DocumentUploadRequestDto extends DocumentContentRequestDto {
  @ApiPropertyOptional({
    type: 'string',
    format: 'binary',
    description: 'multipart/form-data only: the file to ingest (its name and type are the defaults)',
  })
  file?: unknown;
}

export class DocumentListQueryDto {
  @IsOptional()
  @IsIn(DOCUMENT_STATUSES)
  status?: DocumentStatus;

  @ApiPropertyOptional({ enum: DOCUMENT_FORMATS, description: 'The document format (type).' })
  @IsOptional()
  @IsIn(DOCUMENT_FORMATS)
  type?: DocumentFormat;

  @IsOptional()
  @IsString()
  content_type?: string;

  @IsOptional()
  @IsString()
  filename?: string;

  @ApiPropertyOptional({ description: 'JSON object the document metadata must contain, e.g. {"team":"sre"}' })
  @IsOptional()
  @Transform(parseJsonObject)
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  include_deleted?: boolean;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_PAGE_OFFSET)
  offset?: number;
}

export class DocumentRetryQueryDto {
  @ApiProperty({ enum: ['failed'], description: 'Which documents to retry: all failed ones of the tenant.' })
  @IsIn(['failed'])
  status!: 'failed';
}

export class DeadLetterQueryDto {
  @ApiPropertyOptional({ description: 'Also list failures already retried, replaced or dismissed.' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  include_resolved?: boolean;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_PAGE_OFFSET)
  offset?: number;
}

export class ChunkListQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_PAGE_OFFSET)
  offset?: number;
}

export class DocumentSearchFiltersDto {
  @IsOptional()
  @IsUUID('all', { each: true })
  document_ids?: string[];

  @IsOptional()
  @IsString({ each: true })
  content_types?: string[];

  @ApiPropertyOptional({ enum: CHUNK_TYPES, isArray: true })
  @IsOptional()
  @IsIn(CHUNK_TYPES, { each: true })
  chunk_types?: ChunkType[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsISO8601()
  created_after?: string;

  @IsOptional()
  @IsISO8601()
  created_before?: string;
}

export class SearchWeightsDto {
  @IsOptional()
  @IsNumber()
  @Min(0)
  text?: number;

  @IsOptional()
  @IsNumber()
  @Min(0)
  vector?: number;
}

export class DocumentSearchRequestDto {
  @ApiProperty({ example: 'payment processing system' })
  @IsString()
  query!: string;

  @ApiPropertyOptional({ enum: SEARCH_TYPES, default: 'hybrid' })
  @IsOptional()
  @IsIn(SEARCH_TYPES)
  search_type?: SearchType;

  @ApiPropertyOptional({ default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  top_k?: number;

  @ApiPropertyOptional({
    description:
      'Floor on relevance_score (see docs/api-documents.md): for hybrid the fused score scaled to [0, 1], for text and vector the branch score.',
  })
  @IsOptional()
  @IsNumber()
  min_relevance?: number;

  @ApiPropertyOptional({
    description:
      "Floor on each branch's own score (BM25 over its maximum, cosine similarity) before fusion (see docs/api-documents.md).",
  })
  @IsOptional()
  @IsNumber()
  min_branch_relevance?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => DocumentSearchFiltersDto)
  filters?: DocumentSearchFiltersDto;

  @ApiPropertyOptional({
    enum: FUSION_METHODS,
    description:
      'Hybrid fusion: rrf (weighted reciprocal ranks) or convex (weighted sum of normalised branch scores).',
  })
  @IsOptional()
  @IsIn(FUSION_METHODS)
  fusion?: FusionMethod;

  @IsOptional()
  @IsNumber()
  rrf_k?: number;

  @IsOptional()
  @IsInt()
  candidates?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => SearchWeightsDto)
  weights?: SearchWeightsDto;
}
