import type { DiscoveryService } from '@nestjs/core';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { ToolRegistry, type Tool, type ToolDefinition, type ToolOutput } from '@app/tools';
import { InMemoryPlanningKnowledge } from './knowledge/planning-knowledge';
import { UnconfiguredLlmClient } from './llm/unconfigured-llm.client';
import { KNOWLEDGE_INCOMPLETE_PREFIX, PlannerService } from './planner.service';

class DefinitionOnlyTool implements Tool {
  constructor(readonly definition: ToolDefinition) {}
  execute(): Promise<ToolOutput> {
    return Promise.resolve({ data: {} });
  }
}

describe('PlannerService knowledge readiness', () => {
  const registry = new ToolRegistry({ getProviders: () => [] } as unknown as DiscoveryService);
  for (const definition of BUILTIN_TOOL_DEFINITIONS)
    registry.registerBuiltin(new DefinitionOnlyTool(definition));
  const knowledge = new InMemoryPlanningKnowledge();
  const planner = new PlannerService(registry, knowledge, new UnconfiguredLlmClient(), {
    tokenBudget: 6000,
    maxLimit: 100,
    maxSteps: 8,
    executionTimeoutMs: 30_000,
  });
  const incomplete = async () =>
    (await planner.plan({ tenantId: 't1', query: 'list the prod servers', useLlm: false })).warnings.filter(
      (w) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX),
    );
  const catalog = { name: 'ops', version: 1, content: OPS_CATALOG };
  const mappings = { name: 'ops-keywords', version: 1, content: OPS_KEYWORD_MAPPINGS };
  // Each knowledge state started a background training: stop them, as the application does on close.
  afterAll(() => planner.onModuleDestroy());

  it('names every missing part, and nothing once both are published', async () => {
    knowledge.clear();
    expect(await incomplete()).toEqual([expect.stringMatching(/catalog "ops" or mapping "ops-keywords"/)]);
    knowledge.set('t1', { catalog });
    expect(await incomplete()).toEqual([expect.stringMatching(/no published mapping "ops-keywords"/)]);
    knowledge.set('t1', { mappings });
    expect(await incomplete()).toEqual([expect.stringMatching(/no published catalog "ops" for/)]);
    knowledge.set('t1', { catalog, mappings });
    expect(await incomplete()).toEqual([]);
  });
});
