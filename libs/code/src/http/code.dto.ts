import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
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
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CODE_FILE_STATUSES, type CodeFileStatus } from '../code.types';

const toUserId = ({ value }: { value: unknown }) =>
  typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;

/** One changed file of the seed's diff request. */
export class DiffFileDto {
  @ApiProperty({ example: 'src/auth/login.ts' })
  @IsString()
  @Length(1, 1000)
  path!: string;

  @ApiProperty({ enum: CODE_FILE_STATUSES })
  @IsIn(CODE_FILE_STATUSES)
  status!: CodeFileStatus;

  @ApiPropertyOptional({ description: 'The previous path (renamed files)', nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  old_path?: string | null;

  @ApiPropertyOptional({
    description:
      'The text the change applies over: when the stored text differs, 409 BEFORE_DOES_NOT_MATCH names the file and nothing of the diff is applied',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  before?: string | null;

  @ApiPropertyOptional({
    description: 'The text after the change (required for added and modified)',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  after?: string | null;
}

/** The seed's diff request: whole texts per file, or a unified (git) diff applied to the stored texts. */
export class DiffApplyRequestDto {
  @ApiProperty({
    description: 'The end user whose code this is (integer or string)',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    example: 42,
  })
  @Transform(toUserId)
  @IsString({ message: 'user_id must be an integer or a string' })
  @Length(1, 200)
  @Matches(/^\S+$/, { message: 'user_id must not contain spaces' })
  user_id!: string;

  @ApiPropertyOptional({ description: 'Repository name (default: one repository per user, "default")' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @Matches(/^[^\s/][^\n\r]*$/, { message: 'repository must be a single-line name' })
  repository?: string;

  @ApiPropertyOptional({ description: 'The commit the change belongs to (informational)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  commit?: string;

  @ApiPropertyOptional({ type: [DiffFileDto] })
  @ValidateIf((o: DiffApplyRequestDto) => o.files !== undefined || o.unified === undefined)
  @IsArray()
  @ArrayMaxSize(100_000)
  @ValidateNested({ each: true })
  @Type(() => DiffFileDto)
  files?: DiffFileDto[];

  @ApiPropertyOptional({ description: 'A unified diff (git diff output) to apply to the stored texts' })
  @IsOptional()
  @IsString()
  unified?: string;
}

export class DiffQueryDto {
  @ApiPropertyOptional({ description: 'Answer when the diff is indexed (the seed behaviour), up to wait_ms' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  wait?: boolean;

  @ApiPropertyOptional({ description: 'How long ?wait=true waits (ms, default 60000)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(600_000)
  wait_ms?: number;
}

export class SymbolQueryDto {
  @ApiPropertyOptional({ description: 'Part of a symbol name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

export class SymbolDetailQueryDto {
  @ApiPropertyOptional({ description: 'How far callers and callees are followed (default 1)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  depth?: number;
}

export class FileQueryDto {
  @ApiPropertyOptional({ description: 'A directory (lists its files) or a file path (with its text)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  path?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(5000)
  limit?: number;
}

export class RepositoryQueryDto {
  @ApiPropertyOptional({ description: 'Only this user’s repositories' })
  @IsOptional()
  @Transform(toUserId)
  @IsString()
  @Length(1, 200)
  user_id?: string;
}
