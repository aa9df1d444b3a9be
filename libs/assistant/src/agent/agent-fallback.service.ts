import { Injectable } from '@nestjs/common';
import type { ToolContext, ToolListing } from '@app/tools';
import {
  FallbackPlanner,
  isKorean,
  loadSourceCatalogs,
  PlanExecutor,
  PlannerOptions,
  PlanningKnowledge,
  templateAnswer,
} from '@app/planner';
import { bindUserId, declaresUserId, withoutUserId } from './agent-tools.util';
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
 * The agent without a language model (the seed's `_fallback_tool_selection`): the deterministic
 * planner picks tools from their descriptions and fills their inputs, the plan runs, and a template
 * writes the answer. Tools with side effects are never chosen this way: publishing or changing
 * something on a keyword match, with inputs guessed from the prompt, is not a safe default.
 */
@Injectable()
export class AgentFallbackService {
  private readonly planner = new FallbackPlanner();

  constructor(
    private readonly knowledge: PlanningKnowledge,
    private readonly executor: PlanExecutor,
    private readonly options: PlannerOptions,
  ) {}

  async run(
    prompt: string,
    tools: ToolListing[],
    context: ToolContext,
    reason: string,
  ): Promise<AgentFallbackOutcome> {
    const candidates = tools.filter((tool) => tool.available && !tool.has_side_effects);
    const schemas = new Map(candidates.map((tool) => [tool.name, tool.input_schema]));
    const [catalog, mappings] = await Promise.all([
      this.knowledge.catalog(context.tenantId),
      this.knowledge.mappings(context.tenantId),
    ]);
    const { index } = await loadSourceCatalogs(this.knowledge, context.tenantId, catalog, candidates);
    const planned = this.planner.plan({
      query: prompt,
      tools: candidates.map((tool) => ({ ...tool, input_schema: withoutUserId(tool.input_schema) })),
      catalog: index,
      mappings: mappings?.content ?? null,
      now: new Date(),
      maxLimit: this.options.maxLimit,
    });
    const plan = planned.plan;
    const warnings = [`The language model was not used (${reason}); tools were chosen by keyword matching.`];
    warnings.push(...planned.warnings);
    if (!plan.steps.length) {
      const lang = isKorean(prompt) ? 'ko' : 'en';
      return { toolCalls: [], finalResponse: NO_TOOL[lang](reason), thought: 'No tool matched.', warnings };
    }
    for (const step of plan.steps) {
      const schema = schemas.get(step.tool_type);
      if (schema && declaresUserId(schema))
        step.parameters = bindUserId(schema, step.parameters, context.userId).input;
    }
    const execution = await this.executor.execute(context, plan.steps, context.deadline, {
      stageName: 'agent.fallback',
      question: prompt,
    });
    const toolCalls: AgentToolCall[] = execution.steps.map((step) => ({
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
    return {
      toolCalls,
      finalResponse: templateAnswer(
        plan,
        execution,
        tools.map((t) => t.name),
      ),
      thought: `Selected without a language model: ${plan.steps.map((s) => s.purpose ?? s.tool_type).join('; ')}.`,
      warnings,
    };
  }
}
