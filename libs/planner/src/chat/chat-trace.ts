import { Logger } from '@nestjs/common';
import { LlmChatRequest, LlmChatResponse, LlmClient } from '../llm/llm-client';
import type { ChatLlmCall, ChatStep, ChatToolCall } from './chat.types';

/** What one question cost: every model call and tool call, and the warnings met on the way. */
export class ChatTrace {
  private static readonly logger = new Logger('ChatTrace');
  readonly llmCalls: ChatLlmCall[] = [];
  readonly toolCalls: ChatToolCall[] = [];
  readonly warnings: string[] = [];
  searchMs = 0;

  constructor(
    private readonly llm: LlmClient,
    readonly model: string | undefined,
    readonly signal: AbortSignal,
  ) {}

  get llmConfigured(): boolean {
    return this.llm.configured;
  }

  /** Calls the model (the client retries transient failures with 1 s / 2 s backoff); failures are returned, not thrown. */
  async callLlm(
    step: ChatStep,
    request: Omit<LlmChatRequest, 'model' | 'signal'>,
  ): Promise<LlmChatResponse | Error> {
    const started = performance.now();
    try {
      const response = await this.llm.chat({ ...request, model: this.model, signal: this.signal });
      this.llmCalls.push({
        step,
        model: response.model,
        ok: true,
        latency_ms: response.latencyMs,
        attempts: response.attempts,
        error: null,
      });
      return response;
    } catch (error) {
      const message = (error as Error).message;
      ChatTrace.logger.warn({ msg: 'chat LLM call failed', step, error: message });
      this.llmCalls.push({
        step,
        model: this.model ?? this.llm.defaultModel,
        ok: false,
        latency_ms: Math.round(performance.now() - started),
        attempts: (error as { details?: { attempts?: number } }).details?.attempts ?? null,
        error: message,
      });
      return error as Error;
    }
  }
}
