import type { DiscoveryService } from '@nestjs/core';
import { Tool, ToolContext, ToolDefinition, ToolError, ToolOutput, ToolRegistry } from '@app/tools';
import { RegistryPlanExecutor } from './registry-plan.executor';
import { readPath } from './step-reference.util';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tool(name: string, run: (input: Record<string, unknown>) => Promise<ToolOutput>): Tool {
  const definition: ToolDefinition = {
    name,
    description: name,
    tool_type: name,
    input_schema: { type: 'object' },
    output_schema: null,
    has_side_effects: false,
    timeout_ms: 5000,
    source: 'builtin',
  };
  return { definition, execute: (_ctx: ToolContext, input: Record<string, unknown>) => run(input) };
}

const context = (): ToolContext => ({
  tenantId: 't',
  userId: 'u',
  requestId: 'r',
  traceId: 'tr',
  deadline: Date.now() + 10_000,
  signal: new AbortController().signal,
});

describe('RegistryPlanExecutor', () => {
  let registry: ToolRegistry;
  let seen: Record<string, unknown>[];
  beforeEach(() => {
    registry = new ToolRegistry({ getProviders: () => [] } as unknown as DiscoveryService);
    seen = [];
    registry.registerBuiltin(
      tool(
        'slow',
        async (input) => (
          await sleep(300),
          { data: { items: [{ ci_id: 'a' }, { ci_id: `b-${String(input.n)}` }] } }
        ),
      ),
    );
    registry.registerBuiltin(tool('echo', (input) => (seen.push(input), Promise.resolve({ data: input }))));
    registry.registerBuiltin(
      tool('broken', () => Promise.reject(new ToolError('UPSTREAM', 'upstream down'))),
    );
  });

  it('runs independent steps in parallel: about one tool time, not three', async () => {
    const started = Date.now();
    const result = await new RegistryPlanExecutor(registry).execute(
      context(),
      [1, 2, 3].map((n) => ({ id: `s${n}`, tool_type: 'slow', parameters: { n } })),
      Date.now() + 10_000,
    );
    expect(result.status).toBe('succeeded');
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('resolves references after the step they depend on', async () => {
    const result = await new RegistryPlanExecutor(registry).execute(
      context(),
      [
        { id: 's1', tool_type: 'slow', parameters: { n: 1 } },
        {
          id: 's2',
          tool_type: 'echo',
          parameters: { ids: { $ref: 's1', path: 'items.ci_id' }, fixed: 1 },
          depends_on: ['s1'],
        },
      ],
      Date.now() + 10_000,
    );
    expect(seen).toEqual([{ ids: ['a', 'b-1'], fixed: 1 }]);
    expect(result.steps[1]).toMatchObject({ status: 'succeeded', input: { ids: ['a', 'b-1'], fixed: 1 } });
  });

  it('records a failing tool and skips the steps that depend on it, running the rest', async () => {
    const result = await new RegistryPlanExecutor(registry).execute(
      context(),
      [
        { id: 's1', tool_type: 'broken', parameters: {} },
        { id: 's2', tool_type: 'echo', parameters: { x: { $ref: 's1' } }, depends_on: ['s1'] },
        { id: 's3', tool_type: 'echo', parameters: { y: 2 } },
      ],
      Date.now() + 10_000,
    );
    expect(result.status).toBe('partial');
    expect(result.steps.map((s) => s.status)).toEqual(['failed', 'skipped', 'succeeded']);
    expect(result.steps[0].result).toMatchObject({
      error: 'upstream down',
      error_details: { code: 'UPSTREAM' },
    });
  });

  it('reads dot paths through arrays', () => {
    expect(readPath({ a: [{ b: [{ c: 1 }, { c: 2 }] }, { b: [{ c: 3 }] }] }, 'a.b.c')).toEqual([1, 2, 3]);
    expect(readPath({ a: { b: 5 } }, 'a.b')).toBe(5);
  });
});
