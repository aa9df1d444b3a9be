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
    example: 'servers',
  })
  @IsOptional()
  @Matches(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, {
    message: 'id must be a letter or _ followed by letters, digits, _ or -',
  })
  id?: string;

  @ApiProperty({ example: 'ci_lookup' })
  @IsString()
  @Length(1, 200)
  tool_name!: string;

  @ApiPropertyOptional({
    description:
      'Tool input. Any value may be {"$ref": "<step id>.<path>"}, resolved from an earlier step\'s ToolResult, e.g. {"$ref": "servers.data.items[*].id"}',
    example: { filters: { environment: 'prod', ci_type: 'server' }, limit: 50 },
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

export class StageExecuteRequestDto {
  @ApiProperty({ example: 'execute' })
  @IsString()
  @Length(1, 200)
  stage_name!: string;

  @ApiProperty({ type: [StageToolDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => StageToolDto)
  tools!: StageToolDto[];

  @ApiPropertyOptional({ description: 'Deadline for the whole stage in ms (default STAGE_TIMEOUT_MS)' })
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
