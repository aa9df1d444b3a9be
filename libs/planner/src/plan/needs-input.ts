import type { ToolDefinition } from '@app/tools';
import { schemaProperties } from './schema-introspection.util';
import type { Plan, PlanStep } from './plan.types';

/** One input a plan step waits for: the parameter, what it is and the values it takes. */
export interface NeededInput {
  step_id: string;
  tool: string;
  parameter: string;
  description: string | null;
  allowed_values: string[] | null;
}

/** The steps that can run now: those that wait for no input and depend on no step that does. */
export function runnableSteps(plan: Plan): PlanStep[] {
  const waiting = new Set(plan.steps.filter((s) => s.needs_input?.length).map((s) => s.id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of plan.steps)
      if (!waiting.has(step.id) && (step.depends_on ?? []).some((d) => waiting.has(d))) {
        waiting.add(step.id);
        grew = true;
      }
  }
  return plan.steps.filter((s) => !waiting.has(s.id));
}

/** Every input the plan's steps wait for, described from the tools' input schemas. */
export function neededInputs(plan: Plan | null, tools: ToolDefinition[]): NeededInput[] {
  const needed: NeededInput[] = [];
  for (const step of plan?.steps ?? []) {
    const properties = schemaProperties(tools.find((t) => t.name === step.tool_type)?.input_schema);
    for (const name of step.needs_input ?? []) {
      const property = properties.find((p) => p.name === name);
      needed.push({
        step_id: step.id,
        tool: step.tool_type,
        parameter: name,
        description: typeof property?.schema.description === 'string' ? property.schema.description : null,
        allowed_values: property?.enumValues ?? null,
      });
    }
  }
  return needed;
}

/** The clarifying question for the inputs a plan waits for, in the question's language. */
export function inputQuestion(needed: NeededInput[], language: 'ko' | 'en' | undefined): string {
  const lines = needed.map(
    (n) =>
      `- ${n.parameter}${n.description ? ` (${n.description})` : ''}${n.allowed_values ? `: ${n.allowed_values.join(' | ')}` : ''} [${n.tool}]`,
  );
  return language === 'ko'
    ? `진행하려면 다음 값이 필요합니다. 알려 주세요:\n${lines.join('\n')}`
    : `To go on, I need the following. Please tell me:\n${lines.join('\n')}`;
}
