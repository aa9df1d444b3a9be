import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { PageQueryDto } from '../page-query.dto';
import { AGENT_RUN_STATUSES, type AgentRunStatus } from './runs/agent-run.entity';

export const MAX_AGENT_ITERATIONS = 20;
export const DEFAULT_AGENT_ITERATIONS = 5;

/** The seed's LLMExecuteRequest. */
export class LlmExecuteRequestDto {
  @ApiProperty({
    description:
      'The end user the calling service acts for (integer or string); injected into tools that take user_id',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    example: 42,
  })
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value,
  )
  @IsString({ message: 'user_id must be an integer or a string' })
  @Length(1, 200)
  @Matches(/^\S+$/, { message: 'user_id must not contain spaces' })
  user_id!: string;

  @ApiProperty({ example: '내 블로그 글 스타일로 쿠버네티스 업그레이드 후기 초안을 써줘' })
  @IsString()
  @Length(1, 20_000)
  @Matches(/\S/, { message: 'prompt must not be blank' })
  prompt!: string;

  @ApiPropertyOptional({
    description: 'Free-form context from the calling service',
    example: { locale: 'ko' },
  })
  @IsOptional()
  @IsObject()
  context?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Model to use instead of LLM_MODEL', example: 'gpt-4o-mini' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  model?: string;

  @ApiPropertyOptional({
    description: 'Most model turns that may request tools',
    minimum: 1,
    maximum: MAX_AGENT_ITERATIONS,
    default: DEFAULT_AGENT_ITERATIONS,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_AGENT_ITERATIONS)
  max_iterations?: number;
  @ApiPropertyOptional({
    description:
      "Where to POST the run's webhook events (run.awaiting_confirmation, run.completed, run.failed, run.cancelled), signed with the tenant's WEBHOOK_SIGNING_SECRET (X-Ops-Signature: t=<unix>,v1=<HMAC-SHA256 hex of \"<t>.<body>\">). Checked by the http tools' egress policy: an internal address needs HTTP_TOOL_ALLOWLIST, else 400 CALLBACK_URL_REFUSED.",
    example: 'https://hooks.example.com/ops-runs',
    maxLength: 2048,
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  @Matches(/^https?:\/\/\S+$/i, { message: 'callback_url must be an http or https URL' })
  callback_url?: string;
}

export const AGENT_RUN_CALLERS = ['api', 'mcp', 'agent', 'ask'] as const;

/** Filters of `GET /internal/v1/llm/runs`: the ids of a log line or a user's complaint. */
export class AgentRunListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: AGENT_RUN_STATUSES })
  @IsOptional()
  @IsIn(AGENT_RUN_STATUSES)
  status?: AgentRunStatus;

  @ApiPropertyOptional({ description: 'Only runs for this end user' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  user_id?: string;

  @ApiPropertyOptional({
    description: 'Only runs started by this request (X-Request-Id, `requestId` of a log line)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  request_id?: string;

  @ApiPropertyOptional({ description: 'Only runs of this trace (the traceparent trace id of a log line)' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  trace_id?: string;

  @ApiPropertyOptional({ description: 'Only runs started with this API key id' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  key_id?: string;

  @ApiPropertyOptional({ description: 'Only runs started this way', enum: AGENT_RUN_CALLERS })
  @IsOptional()
  @IsIn(AGENT_RUN_CALLERS)
  caller?: (typeof AGENT_RUN_CALLERS)[number];
}
