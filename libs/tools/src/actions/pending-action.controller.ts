import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequestContext, RequireRole } from '@app/platform';
import type { ToolResult } from '../core/tool.types';
import { PendingActionListQueryDto } from './pending-action.dto';
import { Decider, PendingActionService, PendingActionView, ResumedRunView } from './pending-action.service';

function decider(principal: Principal): Decider {
  const request = RequestContext.current();
  return {
    tenantId: principal.tenantId,
    userId: principal.userId,
    requestId: request?.requestId ?? '',
    traceId: request?.traceId ?? '',
  };
}

/**
 * The human side of side-effect confirmation. Operator and admin keys only: a service key is what an
 * agent or MCP client holds, and the point is that such a caller cannot approve its own side effect.
 */
@ApiTags('actions')
@ApiBearerAuth()
@Controller('api/actions')
export class PendingActionController {
  constructor(private readonly actions: PendingActionService) {}

  @Get()
  @RequireRole('operator')
  @ApiOperation({
    summary: 'Side-effect tool calls of the tenant, newest first (`?status=pending` for the queue)',
  })
  async list(
    @Query() query: PendingActionListQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ actions: PendingActionView[] }> {
    return { actions: await this.actions.list(principal.tenantId, query.status, query.limit ?? 50) };
  }

  @Get(':id')
  @RequireRole('operator')
  @ApiOperation({ summary: 'One held action' })
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<PendingActionView> {
    return this.actions.get(principal.tenantId, id);
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @RequireRole('operator')
  @ApiOperation({
    summary:
      'Run a pending side-effect tool call once, as confirmed by this person, and resume the agent run waiting on it (`run`); 409 if not pending, 410 if expired',
  })
  confirm(
    @Param('id') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ action: PendingActionView; result: ToolResult; run: ResumedRunView | null }> {
    return this.actions.confirm(decider(principal), id);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequireRole('operator')
  @ApiOperation({
    summary:
      'Drop a pending side-effect tool call and resume the agent run waiting on it with the rejection; 409 if not pending, 410 if expired',
  })
  reject(
    @Param('id') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<PendingActionView & { run: ResumedRunView | null }> {
    return this.actions.reject(decider(principal), id);
  }
}
