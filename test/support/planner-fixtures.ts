import type { InMemoryPlanningKnowledge } from '@app/planner';
import type { ToolRegistry } from '@app/tools';
import { createFakeOpsTools, FakeOpsTool } from '../../bench/planner/ops-fake-tools';
import { OPS_CATALOG, OPS_MAPPINGS, OPS_TOOL_DEFINITIONS } from '../../bench/planner/ops-tool-definitions';

export { OPS_CATALOG, OPS_MAPPINGS, OPS_TOOL_DEFINITIONS, createFakeOpsTools, FakeOpsTool };

export const SEED_QUERY = '지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개를 보여줘';

/** Registers the stand-in OPS tools (same names and schemas as the built-ins) and returns them by name. */
export function registerFakeOpsTools(registry: ToolRegistry, now = new Date()): Record<string, FakeOpsTool> {
  const tools = createFakeOpsTools(now);
  for (const tool of tools) registry.registerBuiltin(tool);
  return Object.fromEntries(tools.map((tool) => [tool.definition.name, tool]));
}

/** Publishes the OPS catalog and mappings (and optionally a prompt) for every tenant. */
export function feedOpsKnowledge(knowledge: InMemoryPlanningKnowledge, prompt?: string): void {
  knowledge.set(null, {
    catalog: { name: 'ops-catalog', version: 3, content: OPS_CATALOG },
    mappings: { name: 'ops-mappings', version: 2, content: OPS_MAPPINGS },
    prompt: prompt
      ? {
          name: 'planner-prompt',
          version: 1,
          content: { scope: 'planner', engine: 'text', template: prompt },
        }
      : null,
  });
}
