import type { Role, RunEventSink } from '@app/platform';
import type { PlanningHints } from '@app/asset-registry';

export type JsonSchema = Record<string, unknown>;

export type ToolSource = 'builtin' | 'dynamic' | 'mcp';

/** What a caller (planner, MCP client, stage executor, LLM) needs to know to use a tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  /**
   * What kind of tool it is: a built-in tool's own kind (its name), else the kind that built it (`http`,
   * `sql`, `query` for a published query asset, `stage`, `mcp`). The API calls it `tool_type`.
   */
  kind: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema | null;
  has_side_effects: boolean;
  timeout_ms: number;
  source: ToolSource;
  /** Asset version for dynamic tools. */
  version?: number | null;
  /**
   * The data source the tool reads (seed 004 `source_ref`): `internal` for the service's own OPS tables
   * (whose catalog is the published catalog `ops`), the name of a published `source` asset, or null when
   * the tool reads no catalogued source (documents, code, remote MCP tools). The planner plans the tool's
   * parameters over that source's catalog.
   */
  source_ref?: string | null;
  tags?: string[];
  /**
   * What the tool's owner tells the planner about when to use it (examples, keywords, not_for per
   * language): a tool asset's `planning_hints`, or the hints a built-in tool's lib declares with it.
   */
  planning_hints?: PlanningHints | null;
}

/**
 * Who asked for the run. Only a human can approve a side effect: `operator` is a person with an
 * operator or admin key on a direct run endpoint; the others relay a model's or a remote client's
 * decision.
 */
export type ToolCaller = 'agent' | 'chat' | 'plan' | 'mcp' | 'operator' | 'system';

/** Who runs the tool and within what limits. Tenant and user come from auth, never from tool input. */
export interface ToolContext {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
  /** Epoch milliseconds after which the caller no longer wants an answer. */
  deadline: number;
  signal: AbortSignal;
  /** Absent: treated like a caller that may not run side effects on its own. */
  caller?: ToolCaller;
  /**
   * The role of the key behind the call, for the tenant's tool_access policy. Absent: the role of the
   * request's principal (HTTP), else unknown (a policy that restricts roles then refuses the call).
   */
  role?: Role;
  /**
   * A human confirmed this run (a confirmed pending action, or an operator's `confirm: true`). Without
   * it a tool with side effects does not run: the registry holds it as a pending action.
   */
  confirmed?: boolean;
  /** Where a streamed request's progress goes: a stage or plan run reports each step as it starts and ends. */
  onEvent?: RunEventSink;
  /** The API key id of the request behind the call, stored with the stage runs it starts. */
  keyId?: string;
}

/** A side-effect tool call waiting for a human: confirm runs it, reject drops it. */
export interface PendingAction {
  status: 'pending_confirmation';
  action_id: string;
  tool: string;
  input: Record<string, unknown>;
  expires_at: string;
}

/** What a tool implementation returns on success. Failures are thrown (see ToolError). */
export interface ToolOutput<T = unknown> {
  data: T;
  warnings?: string[];
  metadata?: Record<string, unknown>;
}

/** The standard result of every tool run, success or not (the seed's ToolResult). */
export interface ToolResult<T = unknown> {
  success: boolean;
  data: T | null;
  error: string | null;
  error_details: Record<string, unknown> | null;
  warnings: string[];
  metadata: { tool: string; execution_time_ms: number; [key: string]: unknown };
  /** Set when the tool has side effects and was held for confirmation instead of run. */
  pending_action?: PendingAction;
}

export interface Tool {
  readonly definition: ToolDefinition;
  execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput>;
}

export enum ToolErrorCode {
  INVALID_INPUT = 'INVALID_INPUT',
  INVALID_OUTPUT = 'INVALID_OUTPUT',
  TIMEOUT = 'TIMEOUT',
  CANCELLED = 'CANCELLED',
  UNAVAILABLE = 'UNAVAILABLE',
  EXECUTION_FAILED = 'EXECUTION_FAILED',
  FORBIDDEN = 'FORBIDDEN',
  CONFIRMATION_REQUIRED = 'CONFIRMATION_REQUIRED',
  RATE_LIMITED = 'RATE_LIMITED',
}

/** Thrown by tool implementations for an expected failure; becomes a failed ToolResult. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode | string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
