import { Injectable, Logger } from '@nestjs/common';
import { ToolContext, ToolListing, ToolRegistry } from '@app/tools';
import { LlmChatResponse, LlmClient, LlmMessage, LlmToolCall, tracedLlmCall } from '@app/planner';
import { AgentFallbackService } from './agent-fallback.service';
import { AgentOptions } from './agent-options';
import { bindUserId, parseArguments, toLlmToolSpec, toolMessageContent } from './agent-tools.util';
import type { AgentLlmCall, AgentRequest, AgentResult, AgentToolCall } from './agent.types';

export const AGENT_SYSTEM_PROMPT = [
  'You are the assistant of a backend service, acting for one of its users.',
  'Use the tools when the request needs their data or asks for their action; call independent tools in the same turn.',
  'When no tool is needed, answer directly. Never invent tool results.',
  "The user's identity is supplied to the tools by the system: never ask for it or pass it yourself.",
  'Answer in the language of the request; use Markdown when writing documents.',
].join(' ');

const FINAL_RESPONSE_INSTRUCTION =
  'The tool budget for this request is used up. Write the final answer now from the tool results above; say what is missing if they are incomplete.';

/**
 * The tool-calling agent behind `POST /internal/v1/llm/execute`: the model gets the tenant's tools,
 * the agent runs the calls it asks for (one turn's calls in parallel) and feeds the results back
 * until the model answers or `max_iterations` turns are used. Without a working model it falls back
 * to deterministic tool selection and a template answer.
 */
@Injectable()
export class ToolCallingAgentService {
  private readonly logger = new Logger(ToolCallingAgentService.name);

  constructor(
    private readonly registry: ToolRegistry,
    private readonly llm: LlmClient,
    private readonly fallback: AgentFallbackService,
    private readonly options: AgentOptions,
  ) {}

  async execute(request: AgentRequest): Promise<AgentResult> {
    const started = performance.now();
    const controller = new AbortController();
    const deadline = Date.now() + this.options.timeoutMs;
    const timer = setTimeout(() => controller.abort(new Error('agent timeout')), this.options.timeoutMs);
    const toolContext: ToolContext = {
      tenantId: request.tenantId,
      userId: request.userId,
      requestId: request.requestId,
      traceId: request.traceId,
      deadline,
      signal: controller.signal,
      caller: 'agent',
    };
    const tools = this.registry.list(request.tenantId).filter((tool) => tool.available);
    this.logger.log({
      msg: 'agent run',
      tenantId: request.tenantId,
      user_id: request.userId,
      caller: request.callerId,
      tools: tools.length,
      llm: this.llm.configured,
    });
    const state: RunState = {
      toolCalls: [],
      llmCalls: [],
      thoughts: [],
      warnings: [],
      toolsMs: 0,
      iterations: 0,
    };
    try {
      const result = this.llm.configured
        ? await this.runWithModel(request, tools, toolContext, state)
        : await this.runFallback(request, tools, toolContext, state, 'no LLM is configured');
      return { ...result, timings: this.timings(started, state) };
    } finally {
      clearTimeout(timer);
    }
  }

  private async runWithModel(
    request: AgentRequest,
    tools: ToolListing[],
    context: ToolContext,
    state: RunState,
  ): Promise<Omit<AgentResult, 'timings'>> {
    const specs = tools.map(toLlmToolSpec);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const messages: LlmMessage[] = [
      { role: 'system', content: AGENT_SYSTEM_PROMPT },
      { role: 'user', content: this.userMessage(request) },
    ];
    let model: string | null = null;

    while (state.iterations < request.maxIterations) {
      const response = await this.callModel(state, 'tools', {
        messages,
        model: request.model,
        signal: context.signal,
        ...(specs.length ? { tools: specs, toolChoice: 'auto' as const } : {}),
      });
      if (response instanceof Error) {
        if (state.toolCalls.length === 0 && state.iterations === 0)
          return this.runFallback(request, tools, context, state, `the model failed: ${response.message}`);
        state.warnings.push(
          `The model failed after the tool calls (${response.message}); the answer lists the tool results.`,
        );
        return this.finish(request, state, model, this.listResults(request, state));
      }
      model = response.model;
      state.iterations += 1;
      if (!response.toolCalls.length) {
        const text = response.content?.trim();
        if (text) return this.finish(request, state, model, text);
        state.warnings.push('The model returned an empty answer; the answer lists the tool results.');
        return this.finish(request, state, model, this.listResults(request, state));
      }
      if (response.content?.trim()) state.thoughts.push(response.content.trim());
      messages.push({ role: 'assistant', content: response.content, tool_calls: response.toolCalls });
      const calls = await this.runTurn(response.toolCalls, byName, context, request, state);
      state.toolCalls.push(...calls);
      for (const call of calls) {
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: toolMessageContent(
            call.success
              ? { success: true, data: call.result }
              : { success: false, error: call.error, details: call.result },
            this.options.toolResultChars,
          ),
        });
      }
    }

    state.warnings.push(
      `max_iterations (${request.maxIterations}) reached while the model still wanted tools; the answer is written from what was gathered.`,
    );
    messages.push({ role: 'user', content: FINAL_RESPONSE_INSTRUCTION });
    const final = await this.callModel(state, 'final_response', {
      messages,
      model: request.model,
      signal: context.signal,
    });
    if (final instanceof Error || !final.content?.trim()) {
      if (final instanceof Error)
        state.warnings.push(`The final answer could not be written by the model (${final.message}).`);
      return this.finish(request, state, model, this.listResults(request, state), true);
    }
    return this.finish(request, state, final.model, final.content.trim(), true);
  }

  private async runFallback(
    request: AgentRequest,
    tools: ToolListing[],
    context: ToolContext,
    state: RunState,
    reason: string,
  ): Promise<Omit<AgentResult, 'timings'>> {
    const started = performance.now();
    const outcome = await this.fallback.run(request.prompt, tools, context, reason, request.context);
    state.toolsMs += performance.now() - started;
    state.toolCalls.push(...outcome.toolCalls);
    state.warnings.push(...outcome.warnings);
    state.thoughts.push(outcome.thought);
    state.iterations = outcome.toolCalls.length ? 1 : 0;
    return { ...this.finish(request, state, null, outcome.finalResponse), mode: 'fallback' };
  }

  /** Runs one turn's calls concurrently; every call is recorded, failed or not. */
  private async runTurn(
    calls: LlmToolCall[],
    tools: Map<string, ToolListing>,
    context: ToolContext,
    request: AgentRequest,
    state: RunState,
  ): Promise<AgentToolCall[]> {
    const started = performance.now();
    const results = await Promise.all(
      calls.map((call) => this.runCall(call, tools, context, request, state.iterations)),
    );
    state.toolsMs += performance.now() - started;
    return results;
  }

  private async runCall(
    call: LlmToolCall,
    tools: Map<string, ToolListing>,
    context: ToolContext,
    request: AgentRequest,
    iteration: number,
  ): Promise<AgentToolCall> {
    const started = performance.now();
    const failed = (params: Record<string, unknown>, error: string, code: string): AgentToolCall => ({
      id: call.id,
      tool: call.name,
      params,
      result: { error, details: { code } },
      success: false,
      error,
      iteration,
      duration_ms: Math.round(performance.now() - started),
    });
    const tool = tools.get(call.name);
    if (!tool) return failed({}, `There is no tool named "${call.name}".`, 'UNKNOWN_TOOL');
    const parsed = parseArguments(call.arguments);
    if ('error' in parsed)
      return failed({}, `Invalid arguments for ${call.name}: ${parsed.error}.`, 'INVALID_ARGUMENTS');
    const { input, overridden } = bindUserId(tool.input_schema, parsed.args, request.userId);
    if (overridden) {
      this.logger.warn({
        msg: 'model-supplied user_id ignored',
        tool: call.name,
        requestId: request.requestId,
      });
    }
    let result;
    try {
      result = await this.registry.execute(context, call.name, input);
    } catch (error) {
      // The tool was removed between listing and running (an asset archived meanwhile).
      return failed(input, (error as Error).message, 'UNKNOWN_TOOL');
    }
    return {
      id: call.id,
      tool: call.name,
      params: input,
      result: result.success ? result.data : { error: result.error, details: result.error_details },
      success: result.success,
      error: result.error,
      iteration,
      duration_ms: Math.round(performance.now() - started),
      ...(result.pending_action ? { pending_action: result.pending_action } : {}),
    };
  }

  private async callModel(
    state: RunState,
    purpose: AgentLlmCall['purpose'],
    chat: Parameters<LlmClient['chat']>[0],
  ): Promise<LlmChatResponse | Error> {
    const { outcome, record } = await tracedLlmCall(this.llm, chat);
    state.llmCalls.push({ purpose, ...record });
    if (outcome instanceof Error)
      this.logger.warn({ msg: 'agent LLM call failed', purpose, error: outcome.message });
    return outcome;
  }

  private finish(
    request: AgentRequest,
    state: RunState,
    model: string | null,
    finalResponse: string,
    maxReached = false,
  ): Omit<AgentResult, 'timings'> {
    const calls = state.toolCalls;
    const failedCalls = calls.filter((call) => !call.success);
    if (failedCalls.length)
      state.warnings.push(
        `${failedCalls.length} of ${calls.length} tool call(s) failed: ${[...new Set(failedCalls.map((c) => c.tool))].join(', ')}.`,
      );
    return {
      ok: calls.length === 0 || calls.some((call) => call.success),
      thought: state.thoughts.length ? state.thoughts.join('\n') : null,
      tool_calls: calls,
      final_response: finalResponse,
      model_used: model,
      user_id: request.userId,
      mode: 'llm',
      iterations: state.iterations,
      max_iterations_reached: maxReached,
      warnings: state.warnings,
      llm_calls: state.llmCalls,
    };
  }

  private listResults(request: AgentRequest, state: RunState): string {
    const korean = /[\uac00-\ud7a3]/.test(request.prompt);
    if (!state.toolCalls.length)
      return korean ? '답변을 작성하지 못했습니다.' : 'No answer could be written.';
    const lines = state.toolCalls.map((call) => {
      const body = toolMessageContent(call.success ? call.result : call.error, 600);
      return `- ${call.tool}${call.success ? '' : korean ? ' (실패)' : ' (failed)'}: ${body}`;
    });
    return `${korean ? '도구 실행 결과' : 'Tool results'}:\n${lines.join('\n')}`;
  }

  private userMessage(request: AgentRequest): string {
    const context = Object.keys(request.context).length
      ? `\n\nContext (JSON from the calling service):\n${toolMessageContent(request.context, this.options.toolResultChars)}`
      : '';
    return `${request.prompt}${context}`;
  }

  private timings(started: number, state: RunState): AgentResult['timings'] {
    return {
      total_ms: Math.round(performance.now() - started),
      llm_ms: state.llmCalls.reduce((sum, call) => sum + call.latency_ms, 0),
      tools_ms: Math.round(state.toolsMs),
    };
  }
}

interface RunState {
  toolCalls: AgentToolCall[];
  llmCalls: AgentLlmCall[];
  thoughts: string[];
  warnings: string[];
  toolsMs: number;
  iterations: number;
}
