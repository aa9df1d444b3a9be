import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';

export class PlanRequestDto {
  @ApiProperty({ example: '지난 주 사용률이 가장 높은 항목 top 5개를 보여줘' })
  @IsString()
  @Length(1, 4000)
  @Matches(/\S/, { message: 'query must not be blank' })
  query!: string;

  @ApiPropertyOptional({
    description: 'Model to use instead of LLM_MODEL for this request',
    example: 'gpt-4o-mini',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  model?: string;

  @ApiPropertyOptional({
    description: 'false plans (and answers) deterministically even when an LLM is configured',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  use_llm?: boolean;

  @ApiPropertyOptional({
    description: 'Reference time for relative ranges ("last week"), ISO 8601; defaults to now',
  })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: 'now must be an ISO 8601 timestamp with a zone',
  })
  now?: string;

  @ApiPropertyOptional({
    description:
      'true adds `explain`: which planner made the plan and why, the knowledge version, per tool its score, threshold and the published text behind it, and where each parameter came from',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  explain?: boolean;
}

export class AskRequestDto extends PlanRequestDto {}
