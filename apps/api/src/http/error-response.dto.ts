import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ErrorBody } from './http-exception.filter';

/** The body of every 4xx and 5xx answer (see HttpExceptionFilter). */
export class ErrorResponseDto implements ErrorBody {
  @ApiProperty({ description: 'Stable machine-readable code', example: 'VALIDATION_FAILED' })
  error!: string;

  @ApiProperty({ description: 'What went wrong, for a person', example: 'top_k must not be less than 1' })
  message!: string;

  @ApiPropertyOptional({
    description: 'Structured details (which fields, which limit)',
    example: { fields: ['top_k'] },
  })
  details?: unknown;

  @ApiProperty({
    type: String,
    description: 'Also in the X-Request-Id header; quote it when reporting a problem',
    example: 'b7c4e0a2-3f1d-4c55-9a57-2d8f0f5a8e11',
  })
  requestId!: string | undefined;
}
