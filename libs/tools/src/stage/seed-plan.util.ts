import type { ToolDefinition } from '../core/tool.types';
import type { StageDefinition } from './stage-executor.service';
import { StageException } from './stage.exception';

/** One part of the seed 004 plan: the tool (`tool_type`, else the part's default) and its fields. */
export type SeedPlanSpec = Record<string, unknown> & { tool_type?: string };

/** The plan shape of the seeds' LLM planner (seed 004, section 6.3): an intent and one spec per part. */
export type SeedPlan = Record<string, unknown> & { intent?: string; mode?: string };

/**
 * One part of the seed plan shape: the plan's key (`primary`), the tool that runs it when the part names
 * none, and the key of its result in `execute_output` (`primary_results`). The lib that owns the tools
 * registers the parts with `SeedPlanShape`.
 */
export interface SeedPlanPart {
  part: string;
  tool: string;
  output: string;
}

/** Fields of a part that describe the plan, not tool input (the seed's `mode: "metric"`). */
const PLAN_FIELDS = new Set(['tool_type', 'mode']);

/**
 * Turns a seed 004 plan into one stage: a step per part present (ids the part names, run in parallel as
 * the seed's `asyncio.gather`), each part's fields passed as the input of its tool where the tool's input
 * schema declares them (others are reported, not sent: the tool would refuse them), and an output mapping
 * that gives the seed's `ExecuteOutput` (each part's ToolResult under its output key, or null when the
 * plan has no such part).
 */
export function seedPlanToStage(
  plan: SeedPlan,
  parts: readonly SeedPlanPart[],
  definitionOf: (tool: string) => ToolDefinition | undefined,
): { stage: StageDefinition; absent: string[]; warnings: string[] } {
  const names = parts.map((p) => p.part).join(', ');
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan))
    throw invalid(`plan must be an object with one or more of ${names}`);
  const warnings: string[] = [];
  const absent: string[] = [];
  const stage: StageDefinition = {
    stage_name: `plan:${typeof plan.intent === 'string' && plan.intent ? plan.intent : 'execute'}`,
    tools: [],
    output_mapping: {},
  };
  for (const { part, tool: defaultTool, output } of parts) {
    const spec = plan[part] as SeedPlanSpec | null | undefined;
    if (spec === undefined || spec === null) {
      absent.push(output);
      continue;
    }
    if (typeof spec !== 'object' || Array.isArray(spec)) throw invalid(`plan.${part} must be an object`);
    const tool = typeof spec.tool_type === 'string' && spec.tool_type ? spec.tool_type : defaultTool;
    const declared = (
      definitionOf(tool)?.input_schema as { properties?: Record<string, unknown> } | undefined
    )?.properties;
    const input: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(spec)) {
      if (PLAN_FIELDS.has(key) || value === undefined || value === null) continue;
      if (!declared || key in declared) input[key] = value;
      else warnings.push(`plan.${part}.${key} is not an input of ${tool}: not sent.`);
    }
    stage.tools.push({ id: part, tool_name: tool, input });
    stage.output_mapping![output] = { $ref: part };
  }
  if (!stage.tools.length) throw invalid(`plan has none of ${names}`);
  return { stage, absent, warnings };
}

function invalid(message: string): StageException {
  return StageException.invalid([{ step: 'plan', problem: 'invalid_request', message }]);
}
