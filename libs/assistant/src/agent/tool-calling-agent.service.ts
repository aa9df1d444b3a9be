import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  ActionDecision,
  PendingActionService,
  ResumedRunView,
  ToolContext,
  ToolListing,
  ToolRegistry,
  ToolResult,
} from '@app/tools';
import { LlmChatResponse, LlmClient, LlmMessage, LlmToolCall, tracedLlmCall } from '@app/planner';
import { RequestContext, RunCancelledError, type RunObserver } from '@app/platform';
import { AgentFallbackService } from './agent-fallback.service';
import { AgentOptions } from './agent-options';
import { bindUserId, parseArguments, toLlmToolSpec, toolMessageContent } from './agent-tools.util';
import type {
  AgentLlmCall,
  AgentRequest,
  AgentResult,
  AgentRunSummary,
  AgentRunView,
  AgentToolCall,
} from './agent.types';
import { AgentRunEntity, AgentRunPendingCall } from './runs/agent-run.entity';
import { AgentRunQuery, AgentRunRepository } from './runs/agent-run.repository';
import { AgentRunException } from './runs/agent-run.exception';
import {
  pausedAnswer,
  resumedFallbackAnswer,
  RunEventIds,
  runWebhookData,
  toAgentRunView,
} from './runs/agent-run.util';
import { RunWebhookService } from './webhooks/run-webhook.service';

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
export class ToolCallingAgentService implements OnModuleInit {
  private readonly logger = new Logger(ToolCallingAgentService.name);

  constructor(
    private readonly registry: ToolRegistry,
    private readonly llm: LlmClient,
    private readonly fallback: AgentFallbackService,
    private readonly options: AgentOptions,
    private readonly runs: AgentRunRepository,
    private readonly actions: PendingActionService,
    private readonly webhooks: RunWebhookService,
  ) {}

  onModuleInit(): void {
    // A decision on a held call resumes the run that paused on it (in whichever process decides).
    this.actions.onDecision((decision) => this.resume(decision));
  }

  /**
   * Runs the agent for a request. With an observer (a streamed request) every model turn, tool call and
   * answer token is reported as it happens, and the observer going away cancels the remaining work
   * (the run is stored `cancelled` and RunCancelledError is thrown).
   */
  async execute(request: AgentRequest, observer?: RunObserver): Promise<AgentResult> {
    // Stored first, so the run can be found (and followed) while it works.
    const created = await this.runs.create({
      tenantId: request.tenantId,
      userId: request.userId,
      callerId: request.callerId,
      keyId: request.keyId ?? null,
      caller: request.caller ?? 'api',
      requestId: request.requestId,
      traceId: request.traceId,
      prompt: request.prompt,
      callbackUrl: request.callbackUrl ?? null,
      status: 'running',
      mode: this.llm.configured ? 'llm' : 'fallback',
      pending: [],
      state: null,
      result: null,
    });
    observer?.emit('run.started', {
      run_id: created.id,
      request_id: request.requestId,
      trace_id: request.traceId,
      user_id: request.userId,
      caller: request.caller ?? 'api',
    });
    const state: RunState = {
      runId: created.id,
      messages: [],
      toolCalls: [],
      llmCalls: [],
      thoughts: [],
      warnings: [],
      toolsMs: 0,
      iterations: 0,
      model: null,
    };
    return this.drive(
      request,
      state,
      (tools, context) => {
        if (!this.llm.configured)
          return this.runFallback(request, tools, context, state, 'no LLM is configured');
        state.messages = [
          { role: 'system', content: AGENT_SYSTEM_PROMPT },
          { role: 'user', content: this.userMessage(request) },
        ];
        return this.runWithModel(request, tools, context, state);
      },
      observer,
    );
  }

  /** The stored run (its ids, what it waits on, its final result and its webhook deliveries). */
  async getRun(tenantId: string, id: string): Promise<AgentRunView> {
    const run = await this.runs.find(tenantId, id);
    if (!run) throw AgentRunException.notFound(id);
    return {
      ...toAgentRunView(run),
      webhook_deliveries: run.callbackUrl ? await this.webhooks.deliveriesOf(tenantId, id) : [],
    };
  }

  /** A callback URL the egress policy refuses, or without the tenant's signing secret, is a 400. */
  checkCallback(tenantId: string, url: string): Promise<void> {
    return this.webhooks.checkCallback(tenantId, url);
  }

  /** Marks a run failed that cannot go on (stuck resuming past its takeovers) and says so to its webhook. */
  async failRun(run: AgentRunEntity, reason: string): Promise<void> {
    await this.runs.update(run.tenantId, run.id, { status: 'failed' });
    await this.notify(
      {
        runId: run.id,
        tenantId: run.tenantId,
        userId: run.userId,
        requestId: run.requestId,
        traceId: run.traceId,
        caller: run.caller,
        keyId: run.keyId,
        mode: run.mode,
        callbackUrl: run.callbackUrl,
      },
      'failed',
      run.result as unknown as AgentResult | null,
      reason,
    );
  }

  /** The tenant's stored runs, newest first, filtered on their ids. */
  async listRuns(
    tenantId: string,
    query: AgentRunQuery,
  ): Promise<{ runs: AgentRunSummary[]; total: number }> {
    const { rows, total } = await this.runs.list(tenantId, query);
    return {
      total,
      runs: rows.map((row) => {
        const { result: _result, ...summary } = toAgentRunView(row);
        return summary;
      }),
    };
  }

  /**
   * Continues the run paused on `decision.actionId` once every call it waits on is decided: the
   * confirmed results (or the rejections) are given to the model and the loop goes on with the
   * iterations left; a fallback run gets its template answer. Null when no run waits on the action.
   */
  async resume(decision: ActionDecision): Promise<ResumedRunView | null> {
    const recorded = await this.runs.recordDecision(decision.tenantId, decision.actionId, {
      decision: decision.decision,
      decided_by: decision.decidedBy,
      ...(decision.result ? { result: decision.result as unknown as Record<string, unknown> } : {}),
    });
    if (!recorded) return null;
    const { run, ready } = recorded;
    this.logger.log({
      msg: 'agent run decision',
      run_id: run.id,
      action_id: decision.actionId,
      decision: decision.decision,
      ready,
    });
    if (!ready) return { run_id: run.id, kind: 'agent', status: run.status, final_response: null };
    return this.continueRun(run, { requestId: decision.requestId, traceId: decision.traceId });
  }

  /**
   * Continues a run whose held calls are all decided (status `resuming`): after the last decision, or
   * when the scheduler takes over a run whose process died while continuing it (AgentRunJanitor).
   */
  async continueRun(
    run: AgentRunEntity,
    ids: { requestId?: string; traceId?: string } = {},
  ): Promise<ResumedRunView> {
    const saved = run.state as unknown as SavedState;
    const request: AgentRequest = {
      ...saved.request,
      requestId: ids.requestId || saved.request.requestId,
      traceId: ids.traceId || saved.request.traceId,
    };
    const state: RunState = { ...saved.run, runId: run.id, toolsMs: 0, decided: run.pending };
    try {
      const result = await this.drive(request, state, (tools, context) => {
        this.applyDecisions(state, run.pending, run.mode === 'llm');
        if (run.mode !== 'llm') {
          state.thoughts.push('Resumed after the held calls were decided.');
          return Promise.resolve({
            ...this.finish(
              request,
              state,
              null,
              resumedFallbackAnswer(request.prompt, state.toolCalls, run.pending),
            ),
            mode: 'fallback' as const,
          });
        }
        return this.runWithModel(request, tools, context, state);
      });
      return {
        run_id: run.id,
        kind: 'agent',
        status: result.status,
        final_response: result.final_response,
      };
    } catch (error) {
      // The decision itself stands (the tool ran or was dropped); the run is marked failed, not the request
      // (drive() stored the failure and sent its webhook event already).
      await this.runs.update(run.tenantId, run.id, { status: 'failed' });
      this.logger.error({ msg: 'agent run resume failed', run_id: run.id, error: (error as Error).message });
      return { run_id: run.id, kind: 'agent', status: 'failed', final_response: null };
    }
  }

  /** Runs one leg of a run (first or resumed) under the agent's deadline and stores where it ended. */
  private async drive(
    request: AgentRequest,
    state: RunState,
    leg: (tools: ToolListing[], context: ToolContext) => Promise<Omit<AgentResult, LegFields>>,
    observer?: RunObserver,
  ): Promise<AgentResult> {
    const started = performance.now();
    const controller = new AbortController();
    const deadline = Date.now() + this.options.timeoutMs;
    const timer = setTimeout(() => controller.abort(new Error('agent timeout')), this.options.timeoutMs);
    if (state.runId) RequestContext.setRunId(state.runId);
    state.cancel = observer?.signal;
    const toolContext: ToolContext = {
      tenantId: request.tenantId,
      userId: request.userId,
      requestId: request.requestId,
      traceId: request.traceId,
      deadline,
      signal: observer ? AbortSignal.any([controller.signal, observer.signal]) : controller.signal,
      caller: 'agent',
      ...(request.keyId ? { keyId: request.keyId } : {}),
      ...(observer ? { onEvent: observer.emit } : {}),
    };
    const tools = this.registry.list(request.tenantId).filter((tool) => tool.available);
    this.logger.log({
      msg: state.runId ? 'agent run resumed' : 'agent run',
      run_id: state.runId,
      tenantId: request.tenantId,
      user_id: request.userId,
      caller: request.callerId,
      request_id: request.requestId,
      trace_id: request.traceId,
      tools: tools.length,
      llm: this.llm.configured,
    });
    try {
      const outcome = await leg(tools, toolContext);
      this.throwIfCancelled(state);
      return await this.store(request, state, {
        ...outcome,
        timings: this.timings(started, state),
      });
    } catch (error) {
      if (state.runId) await this.stopped(request, state, error, started);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A leg that did not end normally: cancelled by its caller (what ran so far is kept) or failed. */
  private async stopped(request: AgentRequest, state: RunState, error: unknown, started: number) {
    const cancelled = error instanceof RunCancelledError;
    const status = cancelled ? 'cancelled' : 'failed';
    this.logger.log({ msg: `agent run ${status}`, run_id: state.runId, error: (error as Error).message });
    const result: AgentResult = {
      ...this.finish(request, state, state.model, ''),
      mode: state.messages.length ? 'llm' : 'fallback',
      warnings: [...state.warnings, (error as Error).message],
      run_id: state.runId!,
      status,
      timings: this.timings(started, state),
    };
    const stored = await this.runs
      .update(request.tenantId, state.runId!, {
        status,
        state: null,
        result: result as unknown as Record<string, unknown>,
      })
      .then(() => true)
      .catch((failure: Error) => {
        this.logger.error({ msg: 'agent run not stored', run_id: state.runId, error: failure.message });
        return false;
      });
    if (stored)
      await this.notify(
        this.eventIds(request, state.runId!, result.mode),
        status,
        result,
        (error as Error).message,
      );
  }

  private eventIds(request: AgentRequest, runId: string, mode: string): RunEventIds {
    return {
      runId,
      tenantId: request.tenantId,
      userId: request.userId,
      requestId: request.requestId,
      traceId: request.traceId,
      caller: request.caller ?? 'api',
      keyId: request.keyId ?? null,
      mode,
      callbackUrl: request.callbackUrl ?? null,
    };
  }

  /**
   * A run with a callback URL reports where it got to (paused, completed, failed, cancelled) as a
   * webhook, from the process that got it there; a failure to queue it never fails the run.
   */
  private async notify(
    ids: RunEventIds,
    status: AgentResult['status'],
    result: AgentResult | null,
    error?: string,
  ): Promise<void> {
    if (!ids.callbackUrl) return;
    await this.webhooks.publish({
      tenantId: ids.tenantId,
      runId: ids.runId,
      callbackUrl: ids.callbackUrl,
      event: `run.${status}`,
      data: runWebhookData(ids, status, result, error),
    });
  }

  /** Between steps: the caller of a streamed run went away, so nothing more is done for it. */
  private throwIfCancelled(state: RunState): void {
    if (state.cancel?.aborted) throw new RunCancelledError();
  }

  /**
   * Persists the run: completed with its result, or paused on the held calls of the last turn (with
   * what resuming needs). The returned result carries the run id and, when paused, says so.
   */
  private async store(
    request: AgentRequest,
    state: RunState,
    outcome: Omit<AgentResult, 'run_id' | 'status'>,
  ): Promise<AgentResult> {
    const held = state.paused ?? [];
    const status = held.length ? 'awaiting_confirmation' : 'completed';
    const pending: AgentRunPendingCall[] = held.map((call) => ({
      call_id: call.id,
      action_id: call.pending_action!.action_id,
      tool: call.tool,
      decision: null,
    }));
    const finalResponse = held.length ? pausedAnswer(request.prompt, held) : outcome.final_response;
    const { runId: _id, paused: _paused, toolsMs: _ms, decided, cancel: _cancel, ...run } = state;
    const saved: SavedState = { request, run };
    const body: Pick<AgentRunEntity, 'status' | 'mode' | 'pending' | 'state'> = {
      status,
      mode: outcome.mode,
      // The decisions of earlier pauses stay on the run, the calls it now waits on are added.
      pending: [...(decided ?? []), ...pending],
      state: held.length ? (saved as unknown as Record<string, unknown>) : null,
    };
    const runId = state.runId!;
    const final: AgentResult = { run_id: runId, status, ...outcome, final_response: finalResponse };
    await this.runs.update(request.tenantId, runId, {
      ...body,
      result: final as unknown as Record<string, unknown>,
    });
    this.logger.log({ msg: 'agent run stored', run_id: runId, status, held: pending.length });
    await this.notify(this.eventIds(request, runId, outcome.mode), status, final);
    return final;
  }

  /** Writes each decided held call into the calls (and, for the model, as its tool message). */
  private applyDecisions(state: RunState, pending: AgentRunPendingCall[], toModel: boolean): void {
    for (const held of pending) {
      const call = state.toolCalls.find(
        (c) => c.id === held.call_id && c.pending_action?.action_id === held.action_id,
      );
      const result = held.result as unknown as ToolResult | undefined;
      const payload =
        held.decision === 'confirmed' && result
          ? result.success
            ? { success: true, data: result.data }
            : { success: false, error: result.error, details: result.error_details }
          : {
              success: false,
              error: `A person rejected this call (action ${held.action_id}); it was not run and nothing was changed.`,
            };
      if (call) {
        call.decision = held.decision ?? undefined;
        call.success = payload.success;
        call.error = payload.success ? null : (payload.error ?? null);
        call.result = payload.success ? payload.data : { error: payload.error, details: payload.details };
      }
      if (toModel)
        state.messages.push({
          role: 'tool',
          tool_call_id: held.call_id,
          content: toolMessageContent(payload, this.options.toolResultChars),
        });
    }
  }

  private async runWithModel(
    request: AgentRequest,
    tools: ToolListing[],
    context: ToolContext,
    state: RunState,
  ): Promise<Omit<AgentResult, LegFields>> {
    const specs = tools.map(toLlmToolSpec);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const messages = state.messages;

    while (state.iterations < request.maxIterations) {
      this.throwIfCancelled(state);
      context.onEvent?.('step.started', { step: 'model', iteration: state.iterations + 1 });
      const response = await this.callModel(state, 'tools', {
        messages,
        model: request.model,
        signal: context.signal,
        ...this.streamed(context, state.iterations + 1),
        ...(specs.length ? { tools: specs, toolChoice: 'auto' as const } : {}),
      });
      this.throwIfCancelled(state);
      if (response instanceof Error) {
        if (state.toolCalls.length === 0 && state.iterations === 0)
          return this.runFallback(request, tools, context, state, `the model failed: ${response.message}`);
        state.warnings.push(
          `The model failed after the tool calls (${response.message}); the answer lists the tool results.`,
        );
        return this.finish(request, state, state.model, this.listResults(request, state));
      }
      state.model = response.model;
      state.iterations += 1;
      if (!response.toolCalls.length) {
        const text = response.content?.trim();
        if (text) return this.finish(request, state, state.model, text);
        state.warnings.push('The model returned an empty answer; the answer lists the tool results.');
        return this.finish(request, state, state.model, this.listResults(request, state));
      }
      if (response.content?.trim()) state.thoughts.push(response.content.trim());
      messages.push({ role: 'assistant', content: response.content, tool_calls: response.toolCalls });
      const calls = await this.runTurn(response.toolCalls, byName, context, request, state);
      state.toolCalls.push(...calls);
      this.throwIfCancelled(state);
      const held = calls.filter((call) => call.pending_action);
      for (const call of calls) {
        if (call.pending_action) continue;
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
      if (held.length) {
        // Paused: the held calls' tool messages are written once a person decided them (resume()).
        state.paused = held;
        return this.finish(request, state, state.model, '');
      }
    }

    state.warnings.push(
      `max_iterations (${request.maxIterations}) reached while the model still wanted tools; the answer is written from what was gathered.`,
    );
    messages.push({ role: 'user', content: FINAL_RESPONSE_INSTRUCTION });
    this.throwIfCancelled(state);
    context.onEvent?.('step.started', { step: 'model', iteration: state.iterations + 1, final: true });
    const final = await this.callModel(state, 'final_response', {
      messages,
      model: request.model,
      signal: context.signal,
      ...this.streamed(context, state.iterations + 1),
    });
    this.throwIfCancelled(state);
    if (final instanceof Error || !final.content?.trim()) {
      if (final instanceof Error)
        state.warnings.push(`The final answer could not be written by the model (${final.message}).`);
      return this.finish(request, state, state.model, this.listResults(request, state), true);
    }
    return this.finish(request, state, final.model, final.content.trim(), true);
  }

  private async runFallback(
    request: AgentRequest,
    tools: ToolListing[],
    context: ToolContext,
    state: RunState,
    reason: string,
  ): Promise<Omit<AgentResult, LegFields>> {
    const started = performance.now();
    context.onEvent?.('step.started', { step: 'plan', mode: 'fallback', reason });
    const outcome = await this.fallback.run(request.prompt, tools, context, reason, request.context);
    this.throwIfCancelled(state);
    state.toolsMs += performance.now() - started;
    state.toolCalls.push(...outcome.toolCalls);
    state.warnings.push(...outcome.warnings);
    state.thoughts.push(outcome.thought);
    state.iterations = outcome.toolCalls.length ? 1 : 0;
    const held = outcome.toolCalls.filter((call) => call.pending_action);
    if (held.length) state.paused = held;
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
    context.onEvent?.('step.started', { step: 'tool', call_id: call.id, tool: call.name, input, iteration });
    try {
      result = await this.registry.execute(context, call.name, input);
    } catch (error) {
      // The tool was removed between listing and running (an asset archived meanwhile).
      return failed(input, (error as Error).message, 'UNKNOWN_TOOL');
    }
    context.onEvent?.('tool.result', {
      step: 'tool',
      call_id: call.id,
      tool: call.name,
      success: result.success,
      error: result.error,
      duration_ms: Math.round(performance.now() - started),
      ...(result.pending_action ? { pending_action: result.pending_action } : {}),
    });
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

  /** A streamed request gets the model's text as it is written (`answer.delta`). */
  private streamed(context: ToolContext, iteration: number): { onDelta?: (text: string) => void } {
    const emit = context.onEvent;
    return emit ? { onDelta: (text) => emit('answer.delta', { iteration, text }) } : {};
  }

  private finish(
    request: AgentRequest,
    state: RunState,
    model: string | null,
    finalResponse: string,
    maxReached = false,
  ): Omit<AgentResult, LegFields> {
    const calls = state.toolCalls;
    // Held calls are not failures: they wait for a person (or were decided and rewritten).
    const failedCalls = calls.filter((call) => !call.success && !call.pending_action);
    if (failedCalls.length)
      state.warnings.push(
        `${failedCalls.length} of ${calls.length} tool call(s) failed: ${[...new Set(failedCalls.map((c) => c.tool))].join(', ')}.`,
      );
    return {
      ok: calls.length === 0 || calls.some((call) => call.success || call.pending_action !== undefined),
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

/** The fields a leg's outcome gets from store() and drive(). */
type LegFields = 'timings' | 'run_id' | 'status';

/** What a paused run stores to continue later: the request and the run state. */
interface SavedState {
  request: AgentRequest;
  run: Omit<RunState, 'runId' | 'paused' | 'toolsMs' | 'decided' | 'cancel'>;
}

interface RunState {
  /** The stored run once it exists (a resumed run). */
  runId: string | null;
  /** The conversation with the model so far (LLM mode). */
  messages: LlmMessage[];
  /** The model name of the last answer. */
  model: string | null;
  /** Held calls of the last turn: the run pauses on them. */
  paused?: AgentToolCall[];
  /** The held calls of earlier pauses, decided (a resumed run). */
  decided?: AgentRunPendingCall[];
  /** Aborted when a streamed run's caller went away (not stored). */
  cancel?: AbortSignal;
  toolCalls: AgentToolCall[];
  llmCalls: AgentLlmCall[];
  thoughts: string[];
  warnings: string[];
  toolsMs: number;
  iterations: number;
}
