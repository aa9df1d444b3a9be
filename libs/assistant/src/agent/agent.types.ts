import type { PendingAction } from '@app/tools';
import type { LlmCallRecord } from '@app/planner';
import type { RunWebhookDeliveryView } from './webhooks/run-webhook.service';

/** One run of the tool-calling agent (the seed's LLMExecuteRequest), on behalf of `userId`. */
export interface AgentRequest {
  tenantId: string;
  /** The end user the calling service acts for; injected into tools, never taken from the model. */
  userId: string;
  /** Who made the call (the API key's user), for the log. */
  callerId: string;
  /** The API key id of the call, stored with the run. */
  keyId?: string;
  /** How the run was started (stored with the run): api, mcp, agent or ask. */
  caller?: 'api' | 'mcp' | 'agent' | 'ask';
  requestId: string;
  traceId: string;
  prompt: string;
  context: Record<string, unknown>;
  model?: string;
  maxIterations: number;
  /** Where the run's webhook events go (checked against the egress policy when requested). */
  callbackUrl?: string;
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
  /** For a held call: what the person decided (set once the run resumed). */
  decision?: 'confirmed' | 'rejected';
}

export interface AgentLlmCall extends LlmCallRecord {
  purpose: 'tools' | 'final_response';
}

/** The seed's LLMExecuteResult, extended with warnings, iterations and timings. */
export interface AgentResult {
  /** The stored run: `GET /internal/v1/llm/runs/{run_id}`. */
  run_id: string;
  /**
   * `awaiting_confirmation`: a side-effect call is held; confirming or rejecting it
   * (`POST /api/actions/{id}/confirm|reject`) resumes the run, whose final result is then stored.
   * `cancelled` and `failed` are only stored (a streamed run whose caller went away; a run that broke),
   * with what was done until then.
   */
  status: 'completed' | 'awaiting_confirmation' | 'cancelled' | 'failed';
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

/** A stored agent run. */
export interface AgentRunView {
  run_id: string;
  status: 'running' | 'completed' | 'awaiting_confirmation' | 'resuming' | 'cancelled' | 'failed';
  mode: string;
  user_id: string;
  caller_id: string;
  key_id: string | null;
  caller: string;
  request_id: string | null;
  trace_id: string | null;
  prompt: string;
  /** Where the run's webhook events are POSTed (`callback_url` of the request), or null. */
  callback_url: string | null;
  /** The held calls the run waits (or waited) on and their decisions. */
  pending: Array<{
    call_id: string;
    action_id: string;
    tool: string;
    decision: 'confirmed' | 'rejected' | null;
  }>;
  /** The last result (while paused: the one that says what is held). */
  result: AgentResult | null;
  /** One per webhook event (with `callback_url`): its attempts, their outcome, the next one due. */
  webhook_deliveries: RunWebhookDeliveryView[];
  created_at: string;
  updated_at: string;
}

/** A stored agent run in a listing (without its result and deliveries). */
export type AgentRunSummary = Omit<AgentRunView, 'result' | 'webhook_deliveries'>;
