import { Injectable } from '@nestjs/common';
import { RunCancelledError, type RunObserver } from '@app/platform';
import { ToolDataPresence, ToolRegistry, type ToolDataSource } from '@app/tools';
import { AnswerWriter } from './answer/answer-writer';
import { PlanExecutor } from './execution/plan-executor';
import type { PlanExecutionResult, PlanOutcome } from './plan/plan.types';
import { inputQuestion, neededInputs, runnableSteps, type NeededInput } from './plan/needs-input';
import { PlannerOptions } from './planner-options';
import { KNOWLEDGE_INCOMPLETE_PREFIX, PlannerService } from './planner.service';

export interface AskRequest {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
  /** The API key id of the request, stored with the stage run of the plan. */
  keyId?: string;
  query: string;
  model?: string;
  useLlm?: boolean;
  now?: Date;
  /** Also return why the plan was chosen (`planning.explain`). */
  explain?: boolean;
}

export interface AskResult {
  /** `no_data`: the steps ran, but this tenant has none of the data they read loaded, so they could find nothing. */
  /** `needs_input`: a step waits for an input the question does not give (`needs_input` lists them). */
  status: 'answered' | 'no_data' | 'partial' | 'failed' | 'plan_rejected' | 'needs_input';
  /** The inputs the plan waits for (empty unless `status` is `needs_input`). */
  needs_input: NeededInput[];
  query: string;
  answer: string;
  answer_source: 'llm' | 'template';
  model: string | null;
  planning: PlanOutcome;
  execution: PlanExecutionResult | null;
  warnings: string[];
  asset_versions: PlanOutcome['asset_versions'];
  /** The knowledge the plan was made with (the same as `planning.knowledge_version`; kept with the stored run). */
  knowledge_version: string;
  timings: { planning_ms: number; llm_ms: number; execution_ms: number; answer_ms: number; total_ms: number };
}

/** Said in the answer when the plan was made without the tenant's catalog or keyword mappings. */
function knowledgeHint(language: 'ko' | 'en' | undefined): string {
  return language === 'ko'
    ? '참고: 이 테넌트의 계획용 지식(카탈로그, 키워드 매핑)이 아직 게시되지 않아 도구 설명만으로 계획했습니다. 결과가 부정확할 수 있습니다.'
    : "Note: this tenant's planning knowledge (catalog, keyword mappings) is not published yet, so the plan was made from the tool descriptions only and may be less accurate.";
}

/** Plan, validate, execute and answer. An invalid plan is never executed. */
@Injectable()
export class AskService {
  constructor(
    private readonly planner: PlannerService,
    private readonly executor: PlanExecutor,
    private readonly answers: AnswerWriter,
    private readonly tools: ToolRegistry,
    private readonly options: PlannerOptions,
    private readonly presence: ToolDataPresence,
  ) {}

  /**
   * With an observer (a streamed request) the planning, each step and the answer are reported as they
   * happen; the observer going away cancels the steps not yet started and the answer.
   */
  async ask(request: AskRequest, observer?: RunObserver): Promise<AskResult> {
    const started = performance.now();
    const controller = new AbortController();
    const signal = observer ? AbortSignal.any([controller.signal, observer.signal]) : controller.signal;
    const cancelled = () => {
      if (observer?.signal.aborted) throw new RunCancelledError();
    };
    const deadline = Date.now() + this.options.executionTimeoutMs;
    observer?.emit('run.started', {
      query: request.query,
      request_id: request.requestId,
      trace_id: request.traceId,
      user_id: request.userId,
      caller: 'ask',
    });
    observer?.emit('step.started', { step: 'plan' });
    const planning = await this.planner.plan({ ...request, signal });
    cancelled();
    const warnings = [...planning.warnings];
    const tools = this.tools.list(request.tenantId);

    if (!planning.valid || !planning.plan) {
      const reasons = planning.errors
        .map((e) => `${e.step_id ? `${e.step_id}: ` : ''}${e.message}`)
        .join('\n');
      const answer = `The plan was rejected and nothing was run:\n${reasons}`;
      observer?.emit('answer.delta', { step: 'answer', text: answer });
      return {
        status: 'plan_rejected',
        needs_input: [],
        query: request.query,
        answer,
        answer_source: 'template',
        model: planning.model,
        planning,
        execution: null,
        warnings,
        asset_versions: planning.asset_versions,
        knowledge_version: planning.knowledge_version,
        timings: {
          ...planning.timings,
          execution_ms: 0,
          answer_ms: 0,
          total_ms: Math.round(performance.now() - started),
        },
      };
    }

    let execution: PlanExecutionResult | null = null;
    const needed = neededInputs(planning.plan, tools);
    const runnable = runnableSteps(planning.plan);
    if (runnable.length) {
      observer?.emit('step.started', {
        step: 'execute',
        steps: runnable.map((step) => ({
          id: step.id,
          tool: step.tool_type,
          depends_on: step.depends_on ?? [],
        })),
      });
      execution = await this.executor.execute(
        {
          tenantId: request.tenantId,
          userId: request.userId,
          requestId: request.requestId,
          traceId: request.traceId,
          deadline,
          signal,
          caller: 'plan',
          ...(request.keyId ? { keyId: request.keyId } : {}),
          ...(observer ? { onEvent: observer.emit } : {}),
        },
        runnable,
        deadline,
        {
          stageName: 'ops.ask',
          question: request.query,
          origin: { planner: planning.planner, knowledge_version: planning.knowledge_version },
        },
      );
      for (const step of execution.steps)
        warnings.push(...step.result.warnings.map((w) => `${step.step_id}: ${w}`));
    }
    cancelled();
    const missing = await this.missingData(request.tenantId, execution);
    const noData = missing.length > 0;
    for (const source of missing) warnings.push(source.warning);
    const plan = planning.plan;
    // What the answer says before the written part (known before it is written, so streamed first).
    const preamble = [
      planning.warnings.some((w) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX))
        ? knowledgeHint(plan.language)
        : null,
      ...missing.map((source) => source.hint[plan.language === 'ko' ? 'ko' : 'en']),
      needed.length ? inputQuestion(needed, plan.language) : null,
    ].filter((part): part is string => Boolean(part));
    const answered = runnable.length > 0 || !needed.length;
    observer?.emit('step.started', { step: 'answer' });
    // Streamed, the deltas put together are the answer: the preamble, then the model's tokens as it
    // writes them (or a template in one piece).
    const delta = (text: string) => observer?.emit('answer.delta', { step: 'answer', text });
    if (preamble.length) delta(`${preamble.join('\n\n')}${answered ? '\n\n' : ''}`);
    let streamed = false;
    const written = await this.answers.write({
      query: request.query,
      plan,
      execution,
      tools,
      model: request.model,
      useLlm: request.useLlm,
      signal,
      ...(observer && answered
        ? {
            onDelta: (text: string) => {
              streamed = true;
              delta(text);
            },
          }
        : {}),
    });
    if (written.warning) warnings.push(written.warning);
    if (observer && answered && !streamed) delta(written.answer);
    cancelled();
    const status = needed.length
      ? 'needs_input'
      : noData
        ? 'no_data'
        : !execution || execution.status === 'succeeded'
          ? 'answered'
          : execution.status === 'partial'
            ? 'partial'
            : 'failed';
    return {
      status,
      query: request.query,
      answer: [...preamble, ...(answered ? [written.answer] : [])].join('\n\n'),
      needs_input: needed,
      answer_source: written.source,
      model: written.model ?? planning.model,
      planning,
      execution,
      warnings,
      asset_versions: planning.asset_versions,
      knowledge_version: planning.knowledge_version,
      timings: {
        ...planning.timings,
        llm_ms: planning.timings.llm_ms + written.latency_ms,
        execution_ms: execution?.duration_ms ?? 0,
        answer_ms: written.latency_ms,
        total_ms: Math.round(performance.now() - started),
      },
    };
  }

  /** The data the plan's steps read, found nothing in, and the tenant never loaded (see ToolDataPresence). */
  private missingData(tenantId: string, execution: PlanExecutionResult | null): Promise<ToolDataSource[]> {
    return this.presence.missing(
      tenantId,
      (execution?.steps ?? []).map((step) => ({
        tool: step.tool_type,
        success: step.result.success,
        data: step.result.data,
      })),
    );
  }
}
