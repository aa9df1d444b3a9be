import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { PENDING_ACTION_STATUSES, type PendingActionStatus } from './pending-action.entity';

export class PendingActionListQueryDto {
  @ApiPropertyOptional({ enum: PENDING_ACTION_STATUSES, description: 'Only actions in this state' })
  @IsOptional()
  @IsIn(PENDING_ACTION_STATUSES)
  status?: PendingActionStatus;

  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}
