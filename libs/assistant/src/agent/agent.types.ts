import type { PendingAction } from '@app/tools';
import type { LlmCallRecord } from '@app/planner';

/** One run of the tool-calling agent (the seed's LLMExecuteRequest), on behalf of `userId`. */
export interface AgentRequest {
  tenantId: string;
  /** The end user the calling service acts for; injected into tools, never taken from the model. */
  userId: string;
  /** Who made the call (the API key's user), for the log. */
  callerId: string;
  requestId: string;
  traceId: string;
  prompt: string;
  context: Record<string, unknown>;
  model?: string;
  maxIterations: number;
}

/** One tool run (the seed's ToolCall) plus what a caller needs to debug it. */
export interface AgentToolCall {
  id: string;
  tool: string;
  params: Record<string, unknown>;
  /** The tool's data on success; `{ error, details }` on failure. */
  result: unknown;
  success: boolean;
  error: string | null;
  iteration: number;
  duration_ms: number;
  /** The tool has side effects and was held, not run: a person confirms it at /api/actions/{id}/confirm. */
  pending_action?: PendingAction;
}

export interface AgentLlmCall extends LlmCallRecord {
  purpose: 'tools' | 'final_response';
}

/** The seed's LLMExecuteResult, extended with warnings, iterations and timings. */
export interface AgentResult {
  ok: boolean;
  thought: string | null;
  tool_calls: AgentToolCall[];
  final_response: string;
  model_used: string | null;
  user_id: string;
  /** `llm`: the model chose the tools; `fallback`: deterministic selection and a template answer. */
  mode: 'llm' | 'fallback';
  iterations: number;
  max_iterations_reached: boolean;
  warnings: string[];
  llm_calls: AgentLlmCall[];
  timings: { total_ms: number; llm_ms: number; tools_ms: number };
}
