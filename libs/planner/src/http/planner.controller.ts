import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequestContext, RequireRole } from '@app/platform';
import { AskService } from '../ask.service';
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
    });
  }

  @Post('ask')
  @HttpCode(200)
  @ApiOperation({ summary: 'Plan, validate, execute and answer a question' })
  ask(@Body() body: AskRequestDto, @CurrentPrincipal() principal: Principal) {
    const context = RequestContext.current();
    return this.asker.ask({
      tenantId: principal.tenantId,
      userId: principal.userId,
      requestId: context?.requestId ?? 'none',
      traceId: context?.traceId ?? 'none',
      query: body.query.trim(),
      model: body.model,
      useLlm: body.use_llm,
      now: body.now ? new Date(body.now) : undefined,
    });
  }
}
