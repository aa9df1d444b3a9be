import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import type { ToolListing } from '../core/tool-registry';

export class ToolExecuteRequestDto {
  @ApiPropertyOptional({
    description: "The tool's input, checked against its input_schema",
    example: { keywords: ['payment'] },
  })
  @IsOptional()
  @IsObject()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'Deadline for this call in ms (the tool timeout still applies)',
    minimum: 100,
    maximum: 600000,
  })
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600_000)
  timeout_ms?: number;

  @ApiPropertyOptional({
    description:
      'Run tools with side effects now (the caller is a person with an operator or admin key). Without it such a tool is not run: the result holds a pending action to confirm at POST /api/actions/{id}/confirm.',
  })
  @IsOptional()
  @IsBoolean()
  confirm?: boolean;
}

export class StageToolDto {
  @ApiPropertyOptional({
    description: 'Step id used by depends_on and references (default step<N>, 1-based)',
    example: 'runbooks',
  })
  @IsOptional()
  @Matches(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, {
    message: 'id must be a letter or _ followed by letters, digits, _ or -',
  })
  id?: string;

  @ApiProperty({ example: 'document_search' })
  @IsString()
  @Length(1, 200)
  tool_name!: string;

  @ApiPropertyOptional({
    description:
      'Tool input. Any value may be {"$ref": "<step id>.<path>"}, resolved from an earlier step\'s ToolResult, e.g. {"$ref": "servers.data.items[*].id"}',
    example: { query: 'restart procedure', top_k: 5 },
  })
  @IsOptional()
  @IsObject()
  input?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [String],
    description: 'Earlier steps that must finish first (references add theirs)',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  depends_on?: string[];

  @ApiPropertyOptional({ description: 'Timeout for this step in ms (within the stage deadline)' })
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(600_000)
  timeout_ms?: number;
}

const OUTPUT_MAPPING_DESCRIPTION =
  'Names to references over the steps\' results, e.g. {"ids": {"$ref": "servers.data.items[*].id"}}: the stage\'s output';

export class StageDefinitionDto {
  @ApiProperty({ example: 'find_servers' })
  @IsString()
  @Length(1, 200)
  @Matches(/^[A-Za-z_][A-Za-z0-9_-]*$/, {
    message: 'stage_name must be a letter or _ followed by letters, digits, _ or -',
  })
  stage_name!: string;

  @ApiProperty({ type: [StageToolDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => StageToolDto)
  tools!: StageToolDto[];

  @ApiPropertyOptional({
    description: OUTPUT_MAPPING_DESCRIPTION,
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  output_mapping?: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: ['stop', 'continue'],
    default: 'stop',
    description: 'When a step of this stage does not succeed: stop the run, or go on with the next stage',
  })
  @IsOptional()
  @IsIn(['stop', 'continue'])
  on_failure?: 'stop' | 'continue';
}

/**
 * One of four forms: a stage (`stage_name` + `tools`), several stages in order (`stages`), a
 * published stage asset by name (`stage` + `params`), or the seeds' plan shape (`plan`).
 */
export class StageExecuteRequestDto {
  @ApiPropertyOptional({ example: 'execute', description: 'A single stage: its name (with `tools`)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  stage_name?: string;

  @ApiPropertyOptional({ type: [StageToolDto], description: 'A single stage: its steps' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => StageToolDto)
  tools?: StageToolDto[];

  @ApiPropertyOptional({
    description: OUTPUT_MAPPING_DESCRIPTION,
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  output_mapping?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [StageDefinitionDto],
    description:
      'Several stages run in order as one run; a later stage references an earlier one\'s output with {"$ref": "<stage_name>.output.<name>"}',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => StageDefinitionDto)
  stages?: StageDefinitionDto[];

  @ApiPropertyOptional({
    description: 'A published stage asset to run, by name (with `params`)',
    example: 'prod-cpu-report',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  stage?: string;

  @ApiPropertyOptional({
    description:
      'Parameters of the run, referenced as {"$ref": "params.<name>"}; checked against a published stage\'s params_schema',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  params?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      "The seeds' plan shape (seed 004): { intent, mode, primary: {keywords, filters, limit, tool_type}, metric: {metric_name, agg, time_range, tool_type}, graph: {...} }; the response carries execute_output { primary_results, metric_results, graph_results }",
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  plan?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Deadline for the whole run in ms (default STAGE_TIMEOUT_MS)' })
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(600_000)
  timeout_ms?: number;

  @ApiPropertyOptional({
    description:
      'Run tools with side effects now (the caller is a person with an operator or admin key). Without it such a tool is not run: the result holds a pending action to confirm at POST /api/actions/{id}/confirm.',
  })
  @IsOptional()
  @IsBoolean()
  confirm?: boolean;
}

export class StageRunListQueryDto {
  @ApiPropertyOptional({
    description: 'Only runs of this stage (plans run by /ops/ask are "ops.ask")',
    example: 'ops.ask',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  stage_name?: string;

  @ApiPropertyOptional({ enum: ['running', 'ok', 'partial', 'failed'] })
  @IsOptional()
  @IsIn(['running', 'ok', 'partial', 'failed'])
  status?: 'running' | 'ok' | 'partial' | 'failed';

  @ApiPropertyOptional({ description: 'Only runs of this trace (the traceparent trace id of a log line)' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  trace_id?: string;

  @ApiPropertyOptional({
    description: 'Only runs started by this request (X-Request-Id, `requestId` of a log line)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  request_id?: string;

  @ApiPropertyOptional({ description: 'Only runs for this user' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  user_id?: string;

  @ApiPropertyOptional({
    description: 'Only runs driven by this caller',
    enum: ['operator', 'plan', 'agent', 'mcp', 'chat', 'system'],
  })
  @IsOptional()
  @IsIn(['operator', 'plan', 'agent', 'mcp', 'chat', 'system'])
  caller?: string;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  offset?: number;
}

/** A tool as `GET /ops/tools` shows it: the registry's listing, its kind under the API's word. */
export interface ToolListingView extends Omit<ToolListing, 'kind'> {
  /** `builtin` tools name their own kind (their name); dynamic ones `http`, `sql` or `query` (a published query asset). */
  tool_type: string;
}

export function toToolListingView({ kind, ...listing }: ToolListing): ToolListingView {
  return { ...listing, tool_type: kind };
}
