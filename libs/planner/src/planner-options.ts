/** Planner limits, read from the environment by the module. */
export abstract class PlannerOptions {
  abstract readonly tokenBudget: number;
  abstract readonly maxLimit: number;
  abstract readonly maxSteps: number;
  abstract readonly executionTimeoutMs: number;
}
