import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import { MAX_PAGE_OFFSET } from '@app/platform';

export class ChatRequestDto {
  @ApiProperty({ example: '휴가 신청 방법 알려줘' })
  @IsString()
  @Length(1, 4000)
  @Matches(/\S/, { message: 'message must not be blank' })
  message!: string;

  @ApiPropertyOptional({ description: 'Continue this conversation (omit to start a new one)' })
  @IsOptional()
  @IsUUID()
  conversation_id?: string;

  @ApiPropertyOptional({ description: 'Model to use instead of LLM_MODEL', example: 'gpt-4o-mini' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  model?: string;
}

export class ConversationListQueryDto {
  @ApiPropertyOptional({ description: 'Only conversations with a turn asked by this request (X-Request-Id)' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  request_id?: string;

  @ApiPropertyOptional({ description: 'Only conversations with a turn of this trace (traceparent trace id)' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  trace_id?: string;

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
  @Max(MAX_PAGE_OFFSET)
  offset?: number;
}
