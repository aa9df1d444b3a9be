import { Injectable } from '@nestjs/common';
import { StageExecutorService, StageStepResult, ToolContext } from '@app/tools';
import type { PlanExecutionResult, PlanStep, StepExecution } from '../plan/plan.types';
import { toStageReferences } from '../plan/plan-references';
import { PlanExecutor, PlanRunOptions } from './plan-executor';

/**
 * Plan execution is a stage run: the validated plan's steps become stage steps (tool, input,
 * depends_on; references already in the stage syntax), the stage executor runs them (parallel where
 * independent, STAGE_MAX_CONCURRENCY, per-step timeouts, the caller's deadline and cancellation) and
 * stores the run, so `/ops/ask` and the agent's fallback runs are listed under `GET /ops/stage/runs`.
 */
@Injectable()
export class StagePlanExecutor extends PlanExecutor {
  constructor(private readonly stages: StageExecutorService) {
    super();
  }

  async execute(
    context: ToolContext,
    steps: PlanStep[],
    deadline: number,
    options: PlanRunOptions = {},
  ): Promise<PlanExecutionResult> {
    if (!steps.length) return { status: 'skipped', run_id: null, steps: [], duration_ms: 0 };
    const run = await this.stages.execute(
      {
        tenantId: context.tenantId,
        userId: context.userId,
        requestId: context.requestId,
        traceId: context.traceId,
        confirmed: context.confirmed,
        caller: context.caller ?? 'plan',
        ...(context.keyId ? { keyId: context.keyId } : {}),
        deadline: Math.min(context.deadline, deadline),
        ...(context.onEvent ? { onEvent: context.onEvent } : {}),
      },
      {
        stage_name: options.stageName ?? 'plan',
        tools: steps.map((step) => ({
          id: step.id,
          tool_name: step.tool_type,
          input: toStageReferences(step.parameters) as Record<string, unknown>,
          depends_on: step.depends_on ?? [],
        })),
        ...(options.question ? { question: options.question } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
      },
      context.signal,
    );
    const startedAt = Date.parse(run.started_at);
    return {
      status: run.status === 'ok' ? 'succeeded' : run.status === 'partial' ? 'partial' : 'failed',
      run_id: run.run_id,
      steps: run.results.map((result) => toStepExecution(result, startedAt)),
      duration_ms: Math.round(run.duration_ms ?? 0),
    };
  }
}

function toStepExecution(result: StageStepResult, runStartedAt: number): StepExecution {
  return {
    step_id: result.id,
    tool_type: result.tool_name,
    ...(result.source ? { source: result.source } : {}),
    status: result.status,
    input: result.input,
    result: result.result,
    started_at:
      result.started_at_ms === null ? null : new Date(runStartedAt + result.started_at_ms).toISOString(),
    duration_ms: result.duration_ms,
  };
}
