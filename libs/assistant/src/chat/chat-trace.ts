import { Logger } from '@nestjs/common';
import { LlmChatRequest, LlmChatResponse, LlmClient, tracedLlmCall } from '@app/planner';
import { RunCancelledError, type RunObserver, type RunProgressEventName } from '@app/platform';
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

/** The steps whose text becomes the answer: streamed as `answer.delta` to a streamed request. */
const ANSWER_STEPS = new Set<ChatStep>(['answer', 'chitchat']);

/**
 * What one question cost: every model call and tool call, and the warnings met on the way. A streamed
 * request's observer hears each step, and its going away stops the remaining steps.
 */
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
    private readonly observer?: RunObserver,
  ) {}

  /** Answer text already sent as `answer.delta` (a streamed model answer). */
  streamedAnswer = false;

  emit(event: RunProgressEventName, data: Record<string, unknown>): void {
    this.observer?.emit(event, data);
  }

  /** Between steps: a streamed request's caller went away, so nothing more is done for it. */
  checkCancelled(): void {
    if (this.observer?.signal.aborted) throw new RunCancelledError();
  }

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
    this.checkCancelled();
    this.emit('step.started', { step });
    const streams = this.observer && ANSWER_STEPS.has(step);
    const { outcome, record } = await tracedLlmCall(this.llm, {
      ...request,
      model: this.model,
      signal: this.signal,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      ...(streams
        ? {
            onDelta: (text: string) => {
              this.streamedAnswer = true;
              this.emit('answer.delta', { step, text });
            },
          }
        : {}),
    });
    this.llmCalls.push({ step, ...record });
    this.checkCancelled();
    if (outcome instanceof Error)
      ChatTrace.logger.warn({ msg: 'chat LLM call failed', step, error: outcome.message });
    return outcome;
  }
}
