import { Injectable, Logger } from '@nestjs/common';
import type { ToolDefinition } from '@app/tools';
import { LlmClient } from '../llm/llm-client';
import type { Plan, PlanExecutionResult } from '../plan/plan.types';
import { templateAnswer } from './template-answer.util';

export interface WrittenAnswer {
  answer: string;
  source: 'llm' | 'template';
  model: string | null;
  latency_ms: number;
  warning: string | null;
}

const RESULT_CHARS = 12_000;

/** Writes the final answer with the LLM when one is configured, from a template otherwise or on failure. */
@Injectable()
export class AnswerWriter {
  private readonly logger = new Logger(AnswerWriter.name);

  constructor(private readonly llm: LlmClient) {}

  async write(input: {
    query: string;
    plan: Plan;
    execution: PlanExecutionResult | null;
    /** The tenant's tools (named when nothing was run; read to tell scoping steps from answers). */
    tools: ToolDefinition[];
    model?: string;
    useLlm?: boolean;
    signal?: AbortSignal;
    /** The model's text as it is written (the model is then asked to stream); a template is not streamed. */
    onDelta?: (text: string) => void;
  }): Promise<WrittenAnswer> {
    const started = performance.now();
    const template = templateAnswer(input.plan, input.execution, input.tools);
    if (!this.llm.configured || input.useLlm === false) {
      return { answer: template, source: 'template', model: null, latency_ms: 0, warning: null };
    }
    const results = JSON.stringify(
      (input.execution?.steps ?? []).map((s) => ({
        step: s.step_id,
        tool: s.tool_type,
        status: s.status,
        input: s.input,
        data: s.result.data,
        error: s.result.error,
      })),
    );
    try {
      const response = await this.llm.chat({
        model: input.model,
        signal: input.signal,
        ...(input.onDelta ? { onDelta: input.onDelta } : {}),
        messages: [
          {
            role: 'system',
            content:
              'You are an infrastructure operations assistant. Answer the question using only the tool results given. Be concise, cite item names and numbers, say when results are empty or a tool failed, and answer in the language of the question.',
          },
          {
            role: 'user',
            content: `Question: ${input.query}\n\nPlan: ${JSON.stringify(input.plan)}\n\nTool results: ${results.length > RESULT_CHARS ? `${results.slice(0, RESULT_CHARS)}...(truncated)` : results}`,
          },
        ],
      });
      const answer = response.content?.trim();
      if (!answer) throw new Error('the model returned an empty answer');
      return {
        answer,
        source: 'llm',
        model: response.model,
        latency_ms: Math.round(performance.now() - started),
        warning: null,
      };
    } catch (error) {
      const message = (error as Error).message;
      this.logger.warn({ msg: 'LLM answer failed, using the template', error: message });
      return {
        answer: template,
        source: 'template',
        model: null,
        latency_ms: Math.round(performance.now() - started),
        warning: `The answer was written from a template because the model failed: ${message}`,
      };
    }
  }
}
