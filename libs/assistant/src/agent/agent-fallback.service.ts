import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { ToolContext, ToolListing } from '@app/tools';
import {
  FallbackPlanner,
  isKorean,
  loadSourceCatalogs,
  PlanExecutor,
  PlannerOptions,
  PlanningKnowledge,
  inputQuestion,
  neededInputs,
  runnableSteps,
  templateAnswer,
} from '@app/planner';
import { bindUserId, declaresUserId } from './agent-tools.util';
import type { AgentToolCall } from './agent.types';

export interface AgentFallbackOutcome {
  toolCalls: AgentToolCall[];
  finalResponse: string;
  thought: string;
  warnings: string[];
}

const NO_TOOL = {
  ko: (reason: string) =>
    `언어 모델을 사용할 수 없어(${reason}) 요청에 맞는 도구를 찾지 못했습니다. 잠시 후 다시 시도하거나 요청을 더 구체적으로 적어 주세요.`,
  en: (reason: string) =>
    `The language model is unavailable (${reason}) and no tool matched the request. Try again later or phrase the request more specifically.`,
};

/**
 * The agent without a language model (the seed's `_fallback_tool_selection`): the same deterministic
 * planner as `/ops/plan`, over the caller's tools and the tenant's published knowledge, picks the tools
 * and fills their inputs (from the prompt, and from the request's `context` for inputs named there);
 * the plan runs and a template writes the answer. A tool with side effects goes through the registry's
 * confirmation gate like any other caller's call (a pending action unless a `tool_access` policy opts it
 * out). A required input neither the prompt nor the context gives is asked for, not guessed.
 */
@Injectable()
export class AgentFallbackService implements OnModuleDestroy {
  private readonly planner = new FallbackPlanner();

  constructor(
    private readonly knowledge: PlanningKnowledge,
    private readonly executor: PlanExecutor,
    private readonly options: PlannerOptions,
  ) {}

  /** A plan trains its classifier in the background on this event loop: a closing process stops it. */
  onModuleDestroy(): void {
    this.planner.abortTraining();
  }

  async run(
    prompt: string,
    tools: ToolListing[],
    context: ToolContext,
    reason: string,
    requestContext: Record<string, unknown> = {},
  ): Promise<AgentFallbackOutcome> {
    const candidates = tools.filter((tool) => tool.available);
    const schemas = new Map(candidates.map((tool) => [tool.name, tool.input_schema]));
    const [catalog, mappings] = await Promise.all([
      this.knowledge.catalog(context.tenantId),
      this.knowledge.mappings(context.tenantId),
    ]);
    const { index } = await loadSourceCatalogs(this.knowledge, context.tenantId, catalog, candidates);
    const planned = this.planner.plan({
      query: prompt,
      tools: candidates,
      catalog: index,
      mappings: mappings?.content ?? null,
      now: new Date(),
      maxLimit: this.options.maxLimit,
    });
    const plan = planned.plan;
    const warnings = [
      `The language model was not used (${reason}); tools were chosen by the deterministic planner.`,
    ];
    warnings.push(...planned.warnings);
    if (!plan.steps.length) {
      const lang = isKorean(prompt) ? 'ko' : 'en';
      return { toolCalls: [], finalResponse: NO_TOOL[lang](reason), thought: 'No tool matched.', warnings };
    }
    for (const step of plan.steps) {
      const schema = schemas.get(step.tool_type);
      if (!schema) continue;
      const given = new Set<string>();
      // Inputs the calling service named in the request's context (a draft's title and markdown, say).
      for (const name of Object.keys(schema.properties ?? {}))
        if (step.parameters[name] === undefined && requestContext[name] !== undefined && name !== 'user_id') {
          step.parameters[name] = requestContext[name];
          given.add(name);
        }
      if (declaresUserId(schema)) {
        step.parameters = bindUserId(schema, step.parameters, context.userId).input;
        given.add('user_id');
      }
      const waiting = (step.needs_input ?? []).filter((name) => !given.has(name));
      if (waiting.length) step.needs_input = waiting;
      else delete step.needs_input;
    }
    const runnable = runnableSteps(plan);
    const needed = neededInputs(plan, candidates);
    const execution = runnable.length
      ? await this.executor.execute(context, runnable, context.deadline, {
          stageName: 'agent.fallback',
          question: prompt,
        })
      : null;
    const toolCalls: AgentToolCall[] = (execution?.steps ?? []).map((step) => ({
      id: step.step_id,
      tool: step.tool_type,
      params: step.input ?? plan.steps.find((s) => s.id === step.step_id)?.parameters ?? {},
      result: step.result.success
        ? step.result.data
        : { error: step.result.error, details: step.result.error_details },
      success: step.result.success,
      error: step.result.error,
      iteration: 1,
      duration_ms: step.duration_ms,
      // A held side-effect call: the agent pauses the run on it until a person decides.
      ...(step.result.pending_action ? { pending_action: step.result.pending_action } : {}),
    }));
    // A chosen tool that waits for inputs is reported as a call that did not run, with what it needs.
    for (const step of plan.steps.filter((s) => !runnable.includes(s)))
      toolCalls.push({
        id: step.id,
        tool: step.tool_type,
        params: step.parameters,
        result: { error: 'NEEDS_INPUT', needs_input: needed.filter((n) => n.step_id === step.id) },
        success: false,
        error: 'NEEDS_INPUT',
        iteration: 1,
        duration_ms: 0,
      });
    const answer = execution ? templateAnswer(plan, execution, tools) : '';
    return {
      toolCalls,
      finalResponse: [answer, needed.length ? inputQuestion(needed, plan.language) : '']
        .filter(Boolean)
        .join('\n\n'),
      thought: `Selected without a language model: ${plan.steps.map((s) => s.purpose ?? s.tool_type).join('; ')}.`,
      warnings,
    };
  }
}
