import type { ToolResult } from '@app/tools';

/**
 * A reference to an earlier step's result: `{ "$ref": "s1.data.items[*].item_id" }` (the stage syntax;
 * the earlier `{ "$ref": "s1", "path": "items.item_id" }` is accepted and rewritten by the validator).
 */
export interface StepReference {
  $ref: string;
  path?: string;
}

export interface PlanStep {
  id: string;
  tool_type: string;
  /**
   * The data source the step runs against: the tool's `source_ref` (`internal` or a published source
   * asset). Filled from the tool when the plan leaves it out; a plan naming another source than the
   * tool reads is invalid (SOURCE_MISMATCH). Absent for tools that declare no source.
   */
  source?: string;
  parameters: Record<string, unknown>;
  depends_on?: string[];
  purpose?: string;
  /**
   * Required inputs the question does not give: the step is not run until the caller supplies them (the
   * answer asks for them; `status: "needs_input"`), instead of guessing or failing the step.
   */
  needs_input?: string[];
}

/** What the planner decided: the intent and the tool steps (empty when the question needs no tool). */
export interface Plan {
  intent: string;
  steps: PlanStep[];
  /** The language the answer should be written in. */
  language?: 'ko' | 'en';
}

export type PlanIssueCode =
  | 'MALFORMED_PLAN'
  | 'UNKNOWN_TOOL'
  | 'SOURCE_MISMATCH'
  | 'TOOL_UNAVAILABLE'
  | 'INVALID_PARAMETERS'
  | 'UNKNOWN_FILTER_FIELD'
  | 'INVALID_FILTER_VALUE'
  | 'UNKNOWN_CATALOG_VALUE'
  | 'DUPLICATE_STEP_ID'
  | 'UNKNOWN_DEPENDENCY'
  | 'INVALID_REFERENCE'
  | 'DEPENDENCY_CYCLE'
  | 'TOO_MANY_STEPS';

export interface PlanIssue {
  code: PlanIssueCode;
  step_id: string | null;
  path: string;
  message: string;
}

export interface PlanValidation {
  valid: boolean;
  errors: PlanIssue[];
  /** Adjustments made on the way (limits capped, defaults filled). */
  warnings: string[];
  /** The plan as it will run: defaults filled in, limits capped. Null when invalid. */
  plan: Plan | null;
}

export type PlannerSource = 'llm' | 'llm_repair' | 'fallback';

/** One planning attempt that was not used, and why. */
export interface RejectedPlanAttempt {
  source: PlannerSource;
  reason: 'llm_error' | 'malformed_output' | 'invalid_plan';
  message: string;
  errors: PlanIssue[];
  raw?: string | null;
}

export interface AssetVersionRef {
  name: string;
  version: number;
}

export interface PlanAssetVersions {
  prompt: AssetVersionRef | null;
  catalog: AssetVersionRef | null;
  mappings: AssetVersionRef | null;
  tools: Array<{ name: string; source: string; version: number | null }>;
  /** The catalog of each data source the plan's steps run against (null: none published for it). */
  catalogs: Array<{ source: string; catalog: AssetVersionRef | null }>;
}

export interface PromptReport {
  estimated_tokens: number;
  token_budget: number;
  included_tables: string[];
  omitted_tables: string[];
  omitted_tool_schemas: string[];
  omitted_mappings: number;
  /** Per data source: its catalog and how much of it the prompt summary holds. */
  sources: PromptSourceReport[];
}

export interface PromptSourceReport {
  source: string;
  catalog: AssetVersionRef | null;
  tools: string[];
  tables: number;
  included_tables: string[];
  /** Tables shown by name, key and enumerated columns only (the budget had no room for every column). */
  compact_tables: string[];
  estimated_tokens: number;
}

/** Why the deterministic planner chose what it chose (explain-plan as an API field). */
export interface PlanExplanation {
  /** `ready`: the classifier trained on the tenant's knowledge scored the tools; `training`: rules alone. */
  classifier: 'ready' | 'training';
  /** The best-scored tools with their evidence (the question's words in their description or hints, a
   *  mapped or hinted keyword, catalog values for their parameters) and how many labelled questions they have. */
  tools: Array<{
    tool: string;
    score: number;
    examples: number;
    description: number;
    mapped: boolean;
    hinted: boolean;
    catalog_values: number;
  }>;
  /** Keywords of the tenant's mappings and the tools' hints the question contains. */
  keywords: Array<{ keyword: string; value: string; kind: string }>;
  /** Values the question names, by field (catalog values and mapped keywords). */
  facts: Array<{ field: string; value: string }>;
  /** The parts of the question classified on their own. */
  clauses: string[];
}

export interface PlanOutcome {
  /** Why the deterministic planner chose its plan (also computed when the LLM planned, for comparison). */
  explain?: PlanExplanation;
  plan: Plan | null;
  valid: boolean;
  planner: PlannerSource;
  model: string | null;
  errors: PlanIssue[];
  warnings: string[];
  rejected: RejectedPlanAttempt[];
  prompt: PromptReport | null;
  asset_versions: PlanAssetVersions;
  timings: { planning_ms: number; llm_ms: number };
}

export type StepStatus = 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface StepExecution {
  step_id: string;
  tool_type: string;
  /** The data source the step's tool reads, when it declares one. */
  source?: string;
  status: StepStatus;
  input: Record<string, unknown> | null;
  result: ToolResult;
  started_at: string | null;
  duration_ms: number;
}

export interface PlanExecutionResult {
  status: 'succeeded' | 'partial' | 'failed' | 'skipped';
  /** The stored stage run (`GET /ops/stage/runs/{id}`); null when nothing ran. */
  run_id: string | null;
  steps: StepExecution[];
  duration_ms: number;
}
