import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequestContext, RequireRole } from '@app/platform';
import { StageExecutorService, StageRunView } from '../stage/stage-executor.service';
import { abortOnDisconnect } from './request-abort.util';
import { StageExecuteRequestDto } from './tools-api.dto';

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
    return this.stages.execute(
      {
        tenantId: principal.tenantId,
        userId: principal.userId,
        requestId: request?.requestId ?? '',
        traceId: request?.traceId ?? '',
        confirmed: body.confirm === true,
      },
      body,
      abortOnDisconnect(response),
    );
  }

  @Get('runs/:id')
  @ApiOperation({ summary: "A stored stage run of the caller's tenant" })
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<StageRunView> {
    return this.stages.get(principal.tenantId, id);
  }
}
