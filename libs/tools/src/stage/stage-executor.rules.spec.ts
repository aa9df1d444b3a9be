import type { DiscoveryService } from '@nestjs/core';
import { ToolRegistry } from '../core/tool-registry';
import {
  ToolError,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
} from '../core/tool.types';
import { StageExecutorService, type StageCaller } from './stage-executor.service';
import { StageException } from './stage.exception';
import type { StageRunRepository } from './stage-run.repository';
import type { ToolsConfig } from '../tools.config';

function tool(name: string, run: (input: Record<string, unknown>) => ToolOutput | Promise<ToolOutput>): Tool {
  return {
    definition: {
      name,
      description: name,
      input_schema: { type: 'object' },
      has_side_effects: false,
      timeout_ms: 5000,
      source: 'builtin',
    } as Partial<ToolDefinition> as ToolDefinition,
    // A throw inside becomes a rejection, as it would from an async tool.
    execute: (_context: ToolContext, input: Record<string, unknown>) =>
      new Promise<ToolOutput>((resolve) => resolve(run(input))),
  };
}

const inputs: Record<string, Array<Record<string, unknown>>> = {};
const seen = (name: string, input: Record<string, unknown>) => (inputs[name] ??= []).push(input);

function executor() {
  for (const key of Object.keys(inputs)) delete inputs[key];
  const registry = new ToolRegistry({ getProviders: () => [] } as unknown as DiscoveryService);
  registry.registerBuiltin(tool('lookup', () => ({ data: { items: [{ id: 'a' }, { id: 'b' }], total: 2 } })));
  registry.registerBuiltin(
    tool('measure', (input) => (seen('measure', input), { data: { n: (input.ids as unknown[]).length } })),
  );
  registry.registerBuiltin(
    tool('broken', () => {
      throw new ToolError('EXECUTION_FAILED', 'the backend is down');
    }),
  );
  const stored: Array<{ status: string }> = [];
  const runs = {
    start: () => Promise.resolve('run-1'),
    finish: (_id: string, status: string) => (stored.push({ status }), Promise.resolve()),
  } as unknown as StageRunRepository;
  const settings: Record<string, number> = { STAGE_TIMEOUT_MS: 10_000, STAGE_MAX_CONCURRENCY: 4 };
  const config = { ...settings } as unknown as ToolsConfig;
  return { service: new StageExecutorService(registry, runs, config), stored };
}

const caller: StageCaller = { tenantId: 't1', userId: 'u', requestId: 'r', traceId: 'x' };
const signal = () => new AbortController().signal;
const statusOf = (view: {
  results: Array<{ id: string; status: string; result: { error_details: unknown } }>;
}) => Object.fromEntries(view.results.map((r) => [r.id, r.status]));

describe('running a stage', () => {
  it('feeds a step the values its references point to, and stores the run as ok', async () => {
    const { service, stored } = executor();
    const view = await service.execute(
      caller,
      {
        stage_name: 'cpu of the items',
        tools: [
          { id: 'items', tool_name: 'lookup' },
          {
            id: 'cpu',
            tool_name: 'measure',
            input: { ids: { $ref: 'items.data.items[*].id' }, kind: 'cpu' },
          },
        ],
        output_mapping: { count: { $ref: 'cpu.data.n' }, first: { $ref: 'items.data.items[0].id' } },
      },
      signal(),
    );
    expect(inputs.measure).toEqual([{ ids: ['a', 'b'], kind: 'cpu' }]);
    expect(view).toMatchObject({
      status: 'ok',
      output: { count: 2, first: 'a' },
      summary: { total: 2, succeeded: 2 },
    });
    expect(stored).toEqual([{ status: 'ok' }]);
  });

  it('skips the steps that depend on a failed one, runs the independent ones, and calls the run partial', async () => {
    const { service } = executor();
    const view = await service.execute(
      caller,
      {
        stage_name: 's',
        tools: [
          { id: 'down', tool_name: 'broken' },
          { id: 'after', tool_name: 'measure', input: { ids: { $ref: 'down.data.ids' } } },
          { id: 'alone', tool_name: 'lookup' },
        ],
      },
      signal(),
    );
    expect(statusOf(view)).toEqual({ down: 'failed', after: 'skipped', alone: 'succeeded' });
    expect(view.results[1].result.error_details).toMatchObject({
      code: 'DEPENDENCY_FAILED',
      failed_steps: ['down'],
    });
    expect(view.status).toBe('partial');
    expect(inputs.measure).toBeUndefined();
  });

  it('fails a step whose reference does not resolve at run time, and skips what depends on it', async () => {
    const { service } = executor();
    const view = await service.execute(
      caller,
      {
        stage_name: 's',
        tools: [
          { id: 'items', tool_name: 'lookup' },
          { id: 'bad', tool_name: 'measure', input: { ids: { $ref: 'items.data.servers[*].id' } } },
          { id: 'later', tool_name: 'lookup', depends_on: ['bad'] },
        ],
        output_mapping: { n: { $ref: 'bad.data.n' } },
      },
      signal(),
    );
    expect(statusOf(view)).toEqual({ items: 'succeeded', bad: 'failed', later: 'skipped' });
    expect(view.results[1].result.error_details).toMatchObject({ code: 'REFERENCE_UNRESOLVED' });
    expect(view.output).toEqual({ n: null });
    expect(view.warnings).toEqual([expect.stringMatching(/^output "n": bad\.data\.n: no field "n"/)]);
  });

  it('runs no step of a cancelled stage, and calls it failed', async () => {
    const { service } = executor();
    const controller = new AbortController();
    controller.abort();
    const view = await service.execute(
      caller,
      { stage_name: 's', tools: [{ tool_name: 'lookup' }] },
      controller.signal,
    );
    expect(statusOf(view)).toEqual({ step1: 'cancelled' });
    expect(view.status).toBe('failed');
  });
});

describe('running stages in a chain', () => {
  const find = {
    stage_name: 'find',
    tools: [{ id: 'items', tool_name: 'lookup' }],
    output_mapping: { ids: { $ref: 'items.data.items[*].id' } },
  };

  it("hands a stage an earlier stage's output and the run's params", async () => {
    const { service } = executor();
    const view = await service.executeChain(
      caller,
      {
        run_name: 'chain',
        params: { kind: 'memory' },
        stages: [
          find,
          {
            stage_name: 'measure',
            tools: [
              {
                tool_name: 'measure',
                input: { ids: { $ref: 'find.output.ids' }, kind: { $ref: 'params.kind' } },
              },
            ],
          },
        ],
      },
      signal(),
    );
    expect(inputs.measure).toEqual([{ ids: ['a', 'b'], kind: 'memory' }]);
    expect(view.stages?.map((s) => s.status)).toEqual(['ok', 'ok']);
  });

  it('stops at a stage that did not succeed unless it says continue', async () => {
    const { service } = executor();
    const chain = (onFailure: 'stop' | 'continue') =>
      service.executeChain(
        caller,
        {
          run_name: 'c',
          stages: [{ stage_name: 'first', tools: [{ tool_name: 'broken' }], on_failure: onFailure }, find],
        },
        signal(),
      );
    const stopped = await chain('stop');
    expect(stopped.stages?.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(stopped.results[1].result.error_details).toMatchObject({
      code: 'STAGE_NOT_RUN',
      stopped_by: 'first',
    });
    expect(stopped.output).toBeNull();
    const continued = await chain('continue');
    expect(continued.stages?.map((s) => s.status)).toEqual(['failed', 'ok']);
    expect(continued).toMatchObject({ status: 'partial', output: { ids: ['a', 'b'] } });
  });

  it('checks every stage before running any: a reused or reserved stage name, unknown tools and steps, all at once', async () => {
    const { service, stored } = executor();
    const attempt = service.executeChain(
      caller,
      {
        run_name: 'c',
        stages: [
          { stage_name: 'params', tools: [{ tool_name: 'lookup' }] },
          { stage_name: 'x', tools: [{ tool_name: 'nope' }] },
          {
            stage_name: 'x',
            tools: [{ tool_name: 'measure', input: { ids: { $ref: 'later.output.ids' } } }],
          },
        ],
      },
      signal(),
    );
    await expect(attempt).rejects.toBeInstanceOf(StageException);
    const refusal = (await attempt.catch((error: unknown) => error)) as StageException;
    const { problems } = refusal.details as { problems: Array<{ problem: string; message: string }> };
    expect(problems.map((p) => p.problem)).toEqual([
      'duplicate_id',
      'unknown_tool',
      'duplicate_id',
      'unknown_step',
    ]);
    expect(problems[1].message).toMatch(/^stage "x": /);
    expect(stored).toEqual([]);
    expect(inputs.measure).toBeUndefined();
  });
});
