import { Body, Controller, Headers, HttpCode, Post, Res, StreamableFile } from '@nestjs/common';
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
import { AskResult, AskService } from '../ask.service';
import { PlannerService } from '../planner.service';
import { AskRequestDto, PlanRequestDto } from './planner.dto';

@ApiTags('planner')
@ApiBearerAuth()
@RequireRole('operator')
@Controller('ops')
export class PlannerController {
  constructor(
    private readonly planner: PlannerService,
    private readonly asker: AskService,
  ) {}

  @Post('plan')
  @HttpCode(200)
  @ApiOperation({ summary: 'Plan a question: intent and validated tool steps (nothing is executed)' })
  plan(@Body() body: PlanRequestDto, @CurrentPrincipal() principal: Principal) {
    return this.planner.plan({
      tenantId: principal.tenantId,
      query: body.query.trim(),
      model: body.model,
      useLlm: body.use_llm,
      now: body.now ? new Date(body.now) : undefined,
      explain: body.explain === true,
    });
  }

  @Post('ask')
  @HttpCode(200)
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOperation({
    summary: 'Plan, validate, execute and answer a question',
    description:
      'With `Accept: text/event-stream` the run is streamed as SSE events: `run.started`, `step.started` (plan, execute, each tool step, answer), `tool.result` (each step), `answer.delta` (the answer: its model tokens as they are written when an LLM writes it, else in one piece; the deltas put together are `answer`), then `done` with this JSON body (or `error`). Disconnecting cancels the steps not yet started.',
  })
  async ask(
    @Body() body: AskRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AskResult | StreamableFile> {
    const context = RequestContext.current();
    const request = {
      tenantId: principal.tenantId,
      userId: principal.userId,
      keyId: principal.keyId,
      requestId: context?.requestId ?? 'none',
      traceId: context?.traceId ?? 'none',
      query: body.query.trim(),
      model: body.model,
      useLlm: body.use_llm,
      now: body.now ? new Date(body.now) : undefined,
      explain: body.explain === true,
    };
    if (wantsEventStream(accept)) return streamRun(response, (observer) => this.asker.ask(request, observer));
    return this.asker.ask(request);
  }
}
