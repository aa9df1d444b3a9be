import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageQueryDto } from '../page-query.dto';

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

export class ConversationListQueryDto extends PageQueryDto {
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
}
