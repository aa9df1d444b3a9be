import { Logger } from '@nestjs/common';
import { LlmChatRequest, LlmChatResponse, LlmClient, tracedLlmCall } from '@app/planner';
import type { ChatRetries } from './chat-options';
import type { ChatLlmCall, ChatStep, ChatToolCall } from './chat.types';

const RETRIES_OF: Record<ChatStep, keyof ChatRetries> = {
  router: 'router',
  grader: 'grader',
  rewriter: 'rewriter',
  agent: 'answer',
  answer: 'answer',
  chitchat: 'answer',
};

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
    private readonly retries: Partial<ChatRetries> = {},
  ) {}

  get llmConfigured(): boolean {
    return this.llm.configured;
  }

  /**
   * Calls the model (the client retries transient failures with 1 s / 2 s backoff, as often as the step's
   * CHAT_*_RETRIES says); failures are returned, not thrown.
   */
  async callLlm(
    step: ChatStep,
    request: Omit<LlmChatRequest, 'model' | 'signal'>,
  ): Promise<LlmChatResponse | Error> {
    const maxRetries = this.retries[RETRIES_OF[step]];
    const { outcome, record } = await tracedLlmCall(this.llm, {
      ...request,
      model: this.model,
      signal: this.signal,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
    });
    this.llmCalls.push({ step, ...record });
    if (outcome instanceof Error)
      ChatTrace.logger.warn({ msg: 'chat LLM call failed', step, error: outcome.message });
    return outcome;
  }
}
