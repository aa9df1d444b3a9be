import { Logger } from '@nestjs/common';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { DependencyHealth, retry } from '@app/platform';
import { LlmException, PlannerExceptionCode } from '../planner.exception';
import { LlmChatRequest, LlmChatResponse, LlmClient, LlmMessage } from './llm-client';

export interface OpenAiLlmOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
  maxRetries: number;
  /** First backoff delay; doubles per retry (the seed's 1 s, 2 s). */
  retryBaseDelayMs: number;
}

function toOpenAiMessage(message: LlmMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.tool_call_id };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
  }
}

/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LiteLLM...). Retries
 * itself (the SDK's own retries are off) so that every attempt is bounded by the timeout and
 * counted: 429, 5xx, connection errors and timeouts are retried with exponential backoff and jitter.
 */
export class OpenAiLlmClient extends LlmClient {
  readonly configured = true;
  private readonly logger = new Logger(OpenAiLlmClient.name);
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiLlmOptions) {
    super();
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey || 'unused',
      maxRetries: 0,
      timeout: options.timeoutMs,
    });
  }

  get defaultModel(): string {
    return this.options.model;
  }

  async chat(request: LlmChatRequest): Promise<LlmChatResponse> {
    const started = performance.now();
    const body = this.buildBody(request);
    const timeout = request.timeoutMs ?? this.options.timeoutMs;
    const streamed = { text: false };
    return retry(
      async (attempt) => {
        const attemptStarted = performance.now();
        try {
          return request.onDelta
            ? await this.completeStreaming(body, request, timeout, attempt, started, streamed)
            : await this.complete(body, request, timeout, attempt, started);
        } catch (error) {
          const failure = this.classify(error, timeout, attempt, performance.now() - attemptStarted);
          // Text already streamed to the caller cannot be taken back: no second attempt.
          if (streamed.text && failure.transient)
            throw new LlmException(
              failure.code as PlannerExceptionCode,
              failure.message,
              false,
              failure.details as Record<string, unknown> | undefined,
            );
          throw failure;
        }
      },
      {
        retries: request.maxRetries ?? this.options.maxRetries,
        baseDelayMs: this.options.retryBaseDelayMs,
        jitter: 0.2,
        isRetryable: (failure) => (failure as LlmException).transient,
        signal: request.signal,
        onRetry: ({ error, attempt, delayMs }) =>
          this.logger.warn({
            msg: 'LLM call failed, retrying',
            attempt,
            delay_ms: Math.round(delayMs),
            error: (error as Error).message,
          }),
      },
    );
  }

  private async complete(
    body: ChatCompletionCreateParamsNonStreaming,
    request: LlmChatRequest,
    timeout: number,
    attempt: number,
    started: number,
  ): Promise<LlmChatResponse> {
    const completion = await this.client.chat.completions.create(body, {
      timeout,
      signal: request.signal,
      maxRetries: 0,
    });
    const choice = completion.choices?.[0];
    if (!choice?.message) {
      throw new LlmException(PlannerExceptionCode.LLM_BAD_RESPONSE, 'The model returned no choices.', false);
    }
    const toolCalls = (choice.message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function'
        ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
        : [],
    );
    return {
      content: choice.message.content ?? null,
      toolCalls,
      model: completion.model || body.model,
      finishReason: choice.finish_reason ?? null,
      usage: completion.usage
        ? {
            prompt_tokens: completion.usage.prompt_tokens,
            completion_tokens: completion.usage.completion_tokens,
            total_tokens: completion.usage.total_tokens,
          }
        : null,
      attempts: attempt,
      latencyMs: Math.round(performance.now() - started),
    };
  }

  /** The same call with `stream: true`: text deltas go to `onDelta`, tool calls are assembled from theirs. */
  private async completeStreaming(
    body: ChatCompletionCreateParamsNonStreaming,
    request: LlmChatRequest,
    timeout: number,
    attempt: number,
    started: number,
    streamed: { text: boolean },
  ): Promise<LlmChatResponse> {
    const stream = await this.client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { timeout, signal: request.signal, maxRetries: 0 },
    );
    let content: string | null = null;
    let model = body.model;
    let finishReason: string | null = null;
    let usage: LlmChatResponse['usage'] = null;
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      if (chunk.model) model = chunk.model;
      if (chunk.usage)
        usage = {
          prompt_tokens: chunk.usage.prompt_tokens,
          completion_tokens: chunk.usage.completion_tokens,
          total_tokens: chunk.usage.total_tokens,
        };
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (delta?.content) {
        content = (content ?? '') + delta.content;
        streamed.text = true;
        request.onDelta!(delta.content);
      }
      for (const call of delta?.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
        if (call.id) entry.id = call.id;
        if (call.function?.name) entry.name += call.function.name;
        if (call.function?.arguments) entry.arguments += call.function.arguments;
        calls.set(call.index, entry);
      }
    }
    if (!chunks)
      throw new LlmException(PlannerExceptionCode.LLM_BAD_RESPONSE, 'The model streamed nothing.', false);
    return {
      content,
      toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
      model,
      finishReason,
      usage,
      attempts: attempt,
      latencyMs: Math.round(performance.now() - started),
    };
  }

  async health(): Promise<DependencyHealth> {
    const started = performance.now();
    try {
      const models = await this.client.models.list({
        timeout: Math.min(this.options.timeoutMs, 2500),
        maxRetries: 0,
      });
      const ids = models.data.map((model) => model.id);
      return {
        status: ids.length === 0 || ids.includes(this.options.model) ? 'ok' : 'degraded',
        model: this.options.model,
        latency_ms: Math.round(performance.now() - started),
        ...(ids.length && !ids.includes(this.options.model)
          ? { reason: 'model not listed by the endpoint' }
          : {}),
      };
    } catch (error) {
      return { status: 'down', model: this.options.model, error: (error as Error).message };
    }
  }

  private buildBody(request: LlmChatRequest): ChatCompletionCreateParamsNonStreaming {
    const format = request.responseFormat;
    return {
      model: request.model ?? this.options.model,
      messages: request.messages.map(toOpenAiMessage),
      temperature: request.temperature ?? this.options.temperature,
      max_tokens: request.maxTokens ?? this.options.maxTokens,
      ...(format && format.type === 'json_schema'
        ? {
            response_format: {
              type: 'json_schema' as const,
              json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? false },
            },
          }
        : format
          ? { response_format: { type: format.type } }
          : {}),
      ...(request.tools?.length
        ? {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              function: { name: tool.name, description: tool.description, parameters: tool.parameters },
            })),
            tool_choice:
              typeof request.toolChoice === 'object'
                ? { type: 'function' as const, function: { name: request.toolChoice.name } }
                : (request.toolChoice ?? 'auto'),
          }
        : {}),
    };
  }

  private classify(error: unknown, timeoutMs: number, attempts: number, elapsedMs: number): LlmException {
    if (error instanceof LlmException) return error;
    const details = { attempts };
    // Some runtimes surface the SDK's timeout abort as a plain connection error; the clock tells them apart.
    const timedOut =
      error instanceof APIConnectionTimeoutError ||
      (error instanceof APIConnectionError && elapsedMs >= timeoutMs * 0.95);
    if (timedOut) {
      return new LlmException(
        PlannerExceptionCode.LLM_TIMEOUT,
        `The model did not answer within ${timeoutMs} ms.`,
        true,
        details,
      );
    }
    if (error instanceof APIUserAbortError) {
      return new LlmException(
        PlannerExceptionCode.LLM_TIMEOUT,
        'The model call was cancelled.',
        false,
        details,
      );
    }
    if (error instanceof APIError) {
      const status = (error as { status?: number }).status;
      if (status === undefined) {
        return new LlmException(
          PlannerExceptionCode.LLM_UNAVAILABLE,
          `The model endpoint is unreachable: ${error.message}`,
          true,
          details,
        );
      }
      if (status === 429) {
        return new LlmException(
          PlannerExceptionCode.LLM_RATE_LIMITED,
          'The model endpoint is rate limiting.',
          true,
          { ...details, status },
        );
      }
      if (status >= 500 || status === 408) {
        return new LlmException(
          PlannerExceptionCode.LLM_UNAVAILABLE,
          `The model endpoint failed with ${status}.`,
          true,
          { ...details, status },
        );
      }
      return new LlmException(
        PlannerExceptionCode.LLM_REQUEST_REJECTED,
        `The model endpoint rejected the request (${status}): ${error.message}`,
        false,
        { ...details, status },
      );
    }
    return new LlmException(
      PlannerExceptionCode.LLM_BAD_RESPONSE,
      `The model call failed: ${(error as Error).message}`,
      false,
      details,
    );
  }
}
