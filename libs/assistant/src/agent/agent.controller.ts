import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequestContext, RequireRole } from '@app/platform';
import { DEFAULT_AGENT_ITERATIONS, LlmExecuteRequestDto } from './agent.dto';
import type { AgentResult, AgentRunView } from './agent.types';
import { ToolCallingAgentService } from './tool-calling-agent.service';

@ApiTags('agent')
@ApiBearerAuth()
@RequireRole('service')
@Controller('internal/v1/llm')
export class AgentController {
  constructor(private readonly agent: ToolCallingAgentService) {}

  @Post('execute')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Run the tool-calling agent for a user of the calling service (service or admin key); a held side-effect call pauses the run (`status: awaiting_confirmation`) until a person confirms or rejects it',
  })
  execute(
    @Body() body: LlmExecuteRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AgentResult> {
    const context = RequestContext.current();
    return this.agent.execute({
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
    });
  }

  @Get('runs/:id')
  @ApiOperation({
    summary: 'One stored agent run: its ids, the held calls it waits on and its (final, once resumed) result',
  })
  run(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<AgentRunView> {
    return this.agent.getRun(principal.tenantId, id);
  }
}
