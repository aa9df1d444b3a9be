import { Injectable } from '@nestjs/common';
import { ToolRegistry } from '@app/tools';
import { AnswerWriter } from './answer/answer-writer';
import { PlanExecutor } from './execution/plan-executor';
import type { PlanExecutionResult, PlanOutcome } from './plan/plan.types';
import { PlannerOptions } from './planner-options';
import { PlannerService } from './planner.service';

export interface AskRequest {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
  query: string;
  model?: string;
  useLlm?: boolean;
  now?: Date;
}

export interface AskResult {
  status: 'answered' | 'partial' | 'failed' | 'plan_rejected';
  query: string;
  answer: string;
  answer_source: 'llm' | 'template';
  model: string | null;
  planning: PlanOutcome;
  execution: PlanExecutionResult | null;
  warnings: string[];
  asset_versions: PlanOutcome['asset_versions'];
  timings: { planning_ms: number; llm_ms: number; execution_ms: number; answer_ms: number; total_ms: number };
}

/** Plan, validate, execute and answer. An invalid plan is never executed. */
@Injectable()
export class AskService {
  constructor(
    private readonly planner: PlannerService,
    private readonly executor: PlanExecutor,
    private readonly answers: AnswerWriter,
    private readonly tools: ToolRegistry,
    private readonly options: PlannerOptions,
  ) {}

  async ask(request: AskRequest): Promise<AskResult> {
    const started = performance.now();
    const controller = new AbortController();
    const deadline = Date.now() + this.options.executionTimeoutMs;
    const planning = await this.planner.plan({ ...request, signal: controller.signal });
    const warnings = [...planning.warnings];
    const toolNames = this.tools.list(request.tenantId).map((t) => t.name);

    if (!planning.valid || !planning.plan) {
      const reasons = planning.errors
        .map((e) => `${e.step_id ? `${e.step_id}: ` : ''}${e.message}`)
        .join('\n');
      return {
        status: 'plan_rejected',
        query: request.query,
        answer: `The plan was rejected and nothing was run:\n${reasons}`,
        answer_source: 'template',
        model: planning.model,
        planning,
        execution: null,
        warnings,
        asset_versions: planning.asset_versions,
        timings: {
          ...planning.timings,
          execution_ms: 0,
          answer_ms: 0,
          total_ms: Math.round(performance.now() - started),
        },
      };
    }

    let execution: PlanExecutionResult | null = null;
    if (planning.plan.steps.length) {
      execution = await this.executor.execute(
        {
          tenantId: request.tenantId,
          userId: request.userId,
          requestId: request.requestId,
          traceId: request.traceId,
          deadline,
          signal: controller.signal,
          caller: 'plan',
        },
        planning.plan.steps,
        deadline,
      );
      for (const step of execution.steps)
        warnings.push(...step.result.warnings.map((w) => `${step.step_id}: ${w}`));
    }
    const written = await this.answers.write({
      query: request.query,
      plan: planning.plan,
      execution,
      toolNames,
      model: request.model,
      useLlm: request.useLlm,
    });
    if (written.warning) warnings.push(written.warning);
    const status =
      !execution || execution.status === 'succeeded'
        ? 'answered'
        : execution.status === 'partial'
          ? 'partial'
          : 'failed';
    return {
      status,
      query: request.query,
      answer: written.answer,
      answer_source: written.source,
      model: written.model ?? planning.model,
      planning,
      execution,
      warnings,
      asset_versions: planning.asset_versions,
      timings: {
        ...planning.timings,
        llm_ms: planning.timings.llm_ms + written.latency_ms,
        execution_ms: execution?.duration_ms ?? 0,
        answer_ms: written.latency_ms,
        total_ms: Math.round(performance.now() - started),
      },
    };
  }
}
