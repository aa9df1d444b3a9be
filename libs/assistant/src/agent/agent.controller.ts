import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  CurrentPrincipal,
  Principal,
  RequestContext,
  RequireRole,
  streamRun,
  wantsEventStream,
} from '@app/platform';
import { AgentRunListQueryDto, DEFAULT_AGENT_ITERATIONS, LlmExecuteRequestDto } from './agent.dto';
import type { AgentResult, AgentRunSummary, AgentRunView } from './agent.types';
import { ToolCallingAgentService } from './tool-calling-agent.service';

@ApiTags('agent')
@ApiBearerAuth()
@RequireRole('service')
@Controller('internal/v1/llm')
export class AgentController {
  constructor(private readonly agent: ToolCallingAgentService) {}

  @Post('execute')
  @HttpCode(200)
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOperation({
    summary:
      'Run the tool-calling agent for a user of the calling service (service or admin key); a held side-effect call pauses the run (`status: awaiting_confirmation`) until a person confirms or rejects it',
    description:
      'With `Accept: text/event-stream` the run is streamed as server-sent events: `run.started`, `step.started` (model turn, tool call), `tool.result`, `answer.delta` (model text as it is written), then `done` with this JSON body (or `error`). Disconnecting cancels the run (stored `cancelled`). With `callback_url` each state the run reaches (paused on a held call, completed, failed, cancelled) is POSTed there as a signed webhook, retried on 5xx and timeouts; the attempts are on the stored run.',
  })
  async execute(
    @Body() body: LlmExecuteRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AgentResult | StreamableFile> {
    const context = RequestContext.current();
    const request = {
      tenantId: principal.tenantId,
      userId: body.user_id,
      callerId: principal.userId,
      keyId: principal.keyId,
      caller: 'api',
      requestId: context?.requestId ?? 'none',
      traceId: context?.traceId ?? 'none',
      prompt: body.prompt.trim(),
      context: body.context ?? {},
      model: body.model,
      maxIterations: body.max_iterations ?? DEFAULT_AGENT_ITERATIONS,
      ...(body.callback_url ? { callbackUrl: body.callback_url } : {}),
    } as const;
    // Before the run (and before a stream opens): a refused callback URL is a plain 400.
    if (body.callback_url) await this.agent.checkCallback(principal.tenantId, body.callback_url);
    if (wantsEventStream(accept))
      return streamRun(response, (observer) => this.agent.execute(request, observer));
    return this.agent.execute(request);
  }

  @Get('runs')
  @ApiOperation({
    summary:
      "The tenant's agent runs, newest first (filters status, user_id, request_id, trace_id, key_id, caller)",
  })
  async runs(
    @Query() query: AgentRunListQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ runs: AgentRunSummary[]; total: number; limit: number; offset: number }> {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await this.agent.listRuns(principal.tenantId, {
      status: query.status,
      userId: query.user_id,
      requestId: query.request_id,
      traceId: query.trace_id,
      keyId: query.key_id,
      caller: query.caller,
      limit,
      offset,
    });
    return { ...page, limit, offset };
  }

  @Get('runs/:id')
  @ApiOperation({
    summary: 'One stored agent run: its ids, the held calls it waits on and its (final, once resumed) result',
  })
  run(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<AgentRunView> {
    return this.agent.getRun(principal.tenantId, id);
  }
}
