import type { StepStatus, ToolResult } from '@app/tools';

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

/**
 * Why a plan was chosen (`explain: true` on /ops/plan and /ops/ask; bench/planner/explain-plan.ts prints the
 * same): which planner made it and why, the knowledge it used, per tool its score and the published text
 * behind it, the thresholds and why each tool was chosen or left out, and where each parameter came from.
 */
export interface PlanExplanation {
  planner: PlannerChoice;
  knowledge: PlanKnowledge;
  /** `ready`: the classifier trained on this knowledge version scored the tools; `training`: the other signals alone. */
  classifier: 'ready' | 'training';
  /** The parts of the question, each also classified on its own. */
  clauses: string[];
  thresholds: PlanThresholds;
  /** The tools the deterministic planner scored above zero or chose, best first, with their evidence. */
  tools: ToolExplanation[];
  /** The deterministic planner's choice, in step order (the plan's tools when it planned; for comparison when the LLM did). */
  fallback_choice: string[];
  /** Every parameter of every step and where its value came from. */
  parameters: ParameterExplanation[];
  /** What the LLM was sent and returned, attempt by attempt; null when no LLM was asked. */
  llm: LlmPlanExplanation | null;
}

export type PlannerReason =
  | 'llm_plan_valid'
  | 'llm_plan_repaired'
  | 'llm_not_configured'
  | 'llm_not_requested'
  | 'llm_failed'
  | 'llm_plan_rejected';

export interface PlannerChoice {
  source: PlannerSource;
  reason: PlannerReason;
  message: string;
}

/** The knowledge a plan was made with: its version key and what it is made of. */
export interface PlanKnowledge {
  /** knowledgeVersion(): the same value as the plan's `knowledge_version`. */
  version: string;
  tools: Array<{
    name: string;
    source_ref: string | null;
    /** The tool asset's version; null for built-in tools (their version is the code they ship with). */
    version: number | null;
    hints: { examples: number; keywords: number; not_for: number };
  }>;
  mappings: { name: string; version: number; labelled_examples: number } | null;
  catalogs: Array<{ source: string; catalog: AssetVersionRef | null }>;
  resolvers: AssetVersionRef[];
  /** What of it the question touched: keywords (mappings and hints), values by field, item names, topics. */
  touched: {
    keywords: Array<{ keyword: string; value: string; kind: string; hint: boolean }>;
    facts: Array<{ field: string; value: string; table: string | null }>;
    items: string[];
    topics: string[];
  };
}

export interface PlanThresholds {
  /** The score a tool needs. */
  tool: number;
  /** The score a tool needs when the knowledge points at it directly (a keyword, a catalog value, a value only it takes). */
  evidence: number;
  /** The probability a part of the question needs to add a tool. */
  clause: number;
  /** A tool with fewer labelled questions than this is scored by its own evidence instead of the classifier. */
  min_examples: number;
}

export type EvidenceSource =
  | 'classifier'
  | 'evidence_score'
  | 'description'
  | 'hint_keyword'
  | 'hint_example'
  | 'not_for'
  | 'labelled_example'
  | 'mapping_keyword'
  | 'schema_enum'
  | 'schema_pattern'
  | 'catalog_value'
  | 'document';

/** One piece of evidence for (or, with `against`, against) a tool: the published text that matched. */
export interface ToolEvidence {
  source: EvidenceSource;
  /** The published text: the description, the hint or example, the keyword, `property = value`. */
  text: string;
  /** The words of the question it matched. */
  matched?: string[];
  /** Probability, weight or score, where the source has one. */
  value?: number;
  against?: boolean;
}

export interface ToolExplanation {
  tool: string;
  score: number;
  chosen: boolean;
  /** `classifier` for a tool with at least `min_examples` labelled questions, else its own `evidence`. */
  scored_by: 'classifier' | 'evidence';
  labelled_examples: number;
  /** The threshold that applied to it (`evidence` when the knowledge points at it directly). */
  bar: number;
  /** Why it was chosen or left out. */
  decision: string;
  evidence: ToolEvidence[];
}

export type ParameterSource =
  | 'question'
  | 'catalog_value'
  | 'mapping_keyword'
  | 'schema_enum'
  | 'schema_pattern'
  | 'item_name'
  | 'time_expression'
  | 'number'
  | 'step_reference'
  | 'default'
  | 'assumed'
  | 'needs_input'
  | 'llm';

export interface ParameterExplanation {
  step_id: string;
  tool: string;
  /** The parameter; a key of an object parameter as `<parameter>.<key>`. */
  name: string;
  value: unknown;
  source: ParameterSource;
  detail: string;
}

export interface LlmPlanExplanation {
  /** The system prompt: the tenant's published `planner` prompt, or the built-in one (by a digest of its text). */
  prompt: { source: 'asset' | 'builtin'; name: string; version: string };
  /** The tools the prompt listed (and the plan schema allowed). */
  tools_sent: string[];
  estimated_tokens: number | null;
  attempts: Array<{
    source: PlannerSource;
    outcome: 'valid' | 'llm_error' | 'malformed_output' | 'invalid_plan';
    message: string;
    /** What the model returned (null when it did not answer). */
    returned: string | null;
    errors: PlanIssue[];
  }>;
}

export interface PlanOutcome {
  /** Why the plan was chosen; only when the request asked for it (`explain: true`). */
  explain?: PlanExplanation;
  /** The knowledge the plan was made with (knowledgeVersion: tools, hints, mappings, catalogs, resolvers). */
  knowledge_version: string;
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
