import type { DependencyHealth } from '@app/platform';

export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export type LlmMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: LlmToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface LlmToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type LlmResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface LlmChatRequest {
  messages: LlmMessage[];
  /** Overrides the configured model for this call. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  responseFormat?: LlmResponseFormat;
  tools?: LlmToolSpec[];
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  timeoutMs?: number;
  /** Overrides the configured retries of transient failures for this call. */
  maxRetries?: number;
  signal?: AbortSignal;
  /**
   * Streams the answer: called with each piece of text as the model writes it (`stream: true`); the
   * response is the same as without it. A call that failed after some text was streamed is not retried.
   */
  onDelta?: (text: string) => void;
}

export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface LlmChatResponse {
  content: string | null;
  toolCalls: LlmToolCall[];
  model: string;
  finishReason: string | null;
  usage: LlmUsage | null;
  /** Calls made, retries included. */
  attempts: number;
  latencyMs: number;
}

/**
 * A chat-completions language model. The planner and the agents depend on this port only; the
 * OpenAI-compatible adapter is bound when `LLM_BASE_URL` is set, an unconfigured one otherwise.
 * Failures are thrown as LlmException (after retries for transient ones).
 */
export abstract class LlmClient {
  abstract readonly configured: boolean;
  abstract readonly defaultModel: string | null;
  abstract chat(request: LlmChatRequest): Promise<LlmChatResponse>;
  abstract health(): Promise<DependencyHealth>;
}
