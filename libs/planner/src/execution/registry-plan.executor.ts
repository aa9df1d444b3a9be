import { Injectable } from '@nestjs/common';
import { ToolContext, ToolErrorCode, ToolRegistry, ToolResult } from '@app/tools';
import type { PlanExecutionResult, PlanStep, StepExecution } from '../plan/plan.types';
import { PlanExecutor } from './plan-executor';
import { resolveReferences } from './step-reference.util';

function failedResult(tool: string, code: string, message: string): ToolResult {
  return {
    success: false,
    data: null,
    error: message,
    error_details: { code },
    warnings: [],
    metadata: { tool, execution_time_ms: 0 },
  };
}

/** Runs steps through the tool registry; each step starts as soon as its dependencies finish. */
@Injectable()
export class RegistryPlanExecutor extends PlanExecutor {
  constructor(private readonly tools: ToolRegistry) {
    super();
  }

  async execute(context: ToolContext, steps: PlanStep[], deadline: number): Promise<PlanExecutionResult> {
    const started = performance.now();
    const outputs = new Map<string, unknown>();
    const running = new Map<string, Promise<StepExecution>>();
    const effective: ToolContext = { ...context, deadline: Math.min(context.deadline, deadline) };

    const run = (step: PlanStep): Promise<StepExecution> => {
      const existing = running.get(step.id);
      if (existing) return existing;
      const promise = (async (): Promise<StepExecution> => {
        const dependencies = await Promise.all(
          (step.depends_on ?? []).flatMap((id) => {
            const dependency = steps.find((s) => s.id === id);
            return dependency ? [run(dependency)] : [];
          }),
        );
        const failed = dependencies.find((d) => d.status !== 'succeeded');
        if (failed) {
          return {
            step_id: step.id,
            tool_type: step.tool_type,
            status: 'skipped',
            input: null,
            result: failedResult(
              step.tool_type,
              'DEPENDENCY_FAILED',
              `Skipped: step "${failed.step_id}" it depends on did not succeed.`,
            ),
            started_at: null,
            duration_ms: 0,
          };
        }
        const input = resolveReferences(step.parameters, outputs) as Record<string, unknown>;
        const stepStarted = performance.now();
        const startedAt = new Date().toISOString();
        let result: ToolResult;
        try {
          result = await this.tools.execute(effective, step.tool_type, input);
        } catch (error) {
          result = failedResult(step.tool_type, ToolErrorCode.EXECUTION_FAILED, (error as Error).message);
        }
        if (result.success) outputs.set(step.id, result.data);
        return {
          step_id: step.id,
          tool_type: step.tool_type,
          status: result.success ? 'succeeded' : 'failed',
          input,
          result,
          started_at: startedAt,
          duration_ms: Math.round((performance.now() - stepStarted) * 10) / 10,
        };
      })();
      running.set(step.id, promise);
      return promise;
    };

    const executions = await Promise.all(steps.map(run));
    const succeeded = executions.filter((e) => e.status === 'succeeded').length;
    return {
      status: !steps.length
        ? 'skipped'
        : succeeded === steps.length
          ? 'succeeded'
          : succeeded
            ? 'partial'
            : 'failed',
      steps: executions,
      duration_ms: Math.round(performance.now() - started),
    };
  }
}
