import { LlmChatRequest, LlmChatResponse, LlmClient } from './llm-client';

/** One model call as a run's trace records it (the agent's and the chat's `llm_calls`). */
export interface LlmCallRecord {
  model: string | null;
  ok: boolean;
  latency_ms: number;
  attempts: number | null;
  error: string | null;
}

/**
 * Calls the model (the client retries transient failures) and describes the call for the trace.
 * A failure is returned as `outcome`, not thrown: the agent and the chat both carry on without it.
 */
export async function tracedLlmCall(
  llm: LlmClient,
  request: LlmChatRequest,
): Promise<{ outcome: LlmChatResponse | Error; record: LlmCallRecord }> {
  const started = performance.now();
  try {
    const response = await llm.chat(request);
    const { model, latencyMs, attempts } = response;
    return { outcome: response, record: { model, ok: true, latency_ms: latencyMs, attempts, error: null } };
  } catch (error) {
    const message = (error as Error).message;
    return {
      outcome: error as Error,
      record: {
        model: request.model ?? llm.defaultModel,
        ok: false,
        latency_ms: Math.round(performance.now() - started),
        attempts: (error as { details?: { attempts?: number } }).details?.attempts ?? null,
        error: message,
      },
    };
  }
}
