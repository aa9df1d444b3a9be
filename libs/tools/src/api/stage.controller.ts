import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequestContext, RequireRole } from '@app/platform';
import { StageExecutorService, StageRunSummary, StageRunView } from '../stage/stage-executor.service';
import { abortOnDisconnect } from './request-abort.util';
import { StageExecuteRequestDto, StageRunListQueryDto } from './tools-api.dto';

@ApiTags('ops')
@ApiBearerAuth()
@Controller('ops/stage')
export class StageController {
  constructor(private readonly stages: StageExecutorService) {}

  @Post('execute')
  @HttpCode(200)
  @RequireRole('operator')
  @ApiOperation({
    summary:
      'Run a stage of tools: independent steps in parallel, references between steps, one ToolResult per step',
  })
  execute(
    @Body() body: StageExecuteRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StageRunView> {
    const request = RequestContext.current();
    return this.stages.executeRequest(
      {
        tenantId: principal.tenantId,
        userId: principal.userId,
        requestId: request?.requestId ?? '',
        traceId: request?.traceId ?? '',
        keyId: principal.keyId,
        confirmed: body.confirm === true,
      },
      body,
      abortOnDisconnect(response),
    );
  }

  @Get('runs')
  @ApiOperation({
    summary:
      "The caller's tenant's stored runs, newest first: stages run here and plans run by /ops/ask (stage_name ops.ask) and the agent",
  })
  async list(
    @Query() query: StageRunListQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ runs: StageRunSummary[]; total: number; limit: number; offset: number }> {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await this.stages.list(principal.tenantId, {
      stageName: query.stage_name,
      status: query.status,
      traceId: query.trace_id,
      requestId: query.request_id,
      userId: query.user_id,
      caller: query.caller,
      limit,
      offset,
    });
    return { ...page, limit, offset };
  }

  @Get('runs/:id')
  @ApiOperation({ summary: "A stored stage run of the caller's tenant" })
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<StageRunView> {
    return this.stages.get(principal.tenantId, id);
  }
}
