import type { ToolContext } from '@app/tools';
import type { PlanExecutionResult, PlanStep } from '../plan/plan.types';

export interface PlanRunOptions {
  /** The stored run's stage name (`ops.ask`, `agent.fallback`); default `plan`. */
  stageName?: string;
  /** The question the plan answers, kept with the stored run. */
  question?: string;
  /** What made the plan (the planner, the knowledge version), kept with the stored run as its `origin`. */
  origin?: Record<string, unknown>;
}

/**
 * Runs validated plan steps: independent steps in parallel, a step after the steps it depends on,
 * with references replaced by those steps' results. A failed step does not stop the others; steps
 * depending on it are skipped. Implemented by the stage executor (StagePlanExecutor): one step engine.
 */
export abstract class PlanExecutor {
  abstract execute(
    context: ToolContext,
    steps: PlanStep[],
    deadline: number,
    options?: PlanRunOptions,
  ): Promise<PlanExecutionResult>;
}
