import type { ToolContext } from '@app/tools';
import type { PlanExecutionResult, PlanStep } from '../plan/plan.types';

/**
 * Runs validated plan steps: independent steps in parallel, a step after the steps it depends on,
 * with `{ $ref }` parameters replaced by those steps' outputs. A failed step does not stop the
 * others; steps depending on it are skipped. Bound to the stage executor by the application.
 */
export abstract class PlanExecutor {
  abstract execute(context: ToolContext, steps: PlanStep[], deadline: number): Promise<PlanExecutionResult>;
}
