import { Test } from '@nestjs/testing';
import { DiscoveryModule } from '@nestjs/core';
import { SchemaValidator } from './schema-validator';
import { BuiltinTool } from './tool.decorator';
import { ToolRegistry } from './tool-registry';
import { Tool, ToolContext, ToolDefinition, ToolError, ToolOutput } from './tool.types';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });

function definition(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: `${name} tool`,
    kind: name,
    input_schema: {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 0 }, limit: { type: 'integer', default: 10 } },
      required: ['n'],
      additionalProperties: false,
    },
    output_schema: { type: 'object', properties: { doubled: { type: 'integer' } }, required: ['doubled'] },
    has_side_effects: false,
    timeout_ms: 1000,
    source: 'builtin',
    ...extra,
  };
}

class FakeTool implements Tool {
  constructor(
    readonly definition: ToolDefinition,
    private readonly run: (ctx: ToolContext, input: Record<string, unknown>) => Promise<ToolOutput>,
  ) {}
  execute(ctx: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    return this.run(ctx, input);
  }
}

@BuiltinTool()
class DoubleTool implements Tool {
  readonly definition = definition('double');
  execute(_ctx: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    return Promise.resolve({ data: { doubled: (input.n as number) * 2, limit: input.limit } });
  }
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    tenantId: 't1',
    userId: 'u1',
    requestId: 'r1',
    traceId: 'trace',
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('ToolRegistry', () => {
  let registry: ToolRegistry;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule],
      providers: [ToolRegistry, DoubleTool],
    }).compile();
    await moduleRef.init();
    registry = moduleRef.get(ToolRegistry);
  });

  it('discovers providers marked @BuiltinTool', () => {
    expect(registry.list('t1').map((t) => t.name)).toEqual(['double']);
  });

  it('validates input, applies defaults and wraps the output in a ToolResult', async () => {
    const result = await registry.execute(context(), 'double', { n: 4 });
    expect(result).toMatchObject({
      success: true,
      data: { doubled: 8, limit: 10 },
      error: null,
      warnings: [],
    });
    expect(result.metadata.execution_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('returns a failed result for invalid input, naming the fields', async () => {
    const result = await registry.execute(context(), 'double', { n: -1, extra: true });
    expect(result.success).toBe(false);
    expect(result.error_details).toMatchObject({ code: 'INVALID_INPUT' });
    const paths = (result.error_details?.issues as Array<{ path: string }>).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/n', '/extra']));
  });

  it('throws not-found for an unknown tool', async () => {
    await expect(registry.execute(context(), 'nope', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('times a slow tool out and aborts it', async () => {
    let aborted = false;
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('slow', { timeout_ms: 50, source: 'dynamic' }), async (ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        await sleep(1000, ctx.signal).catch(() => undefined);
        return { data: { doubled: 0 } };
      }),
    );
    const result = await registry.execute(context(), 'slow', { n: 1 });
    expect(result.error_details).toMatchObject({ code: 'TIMEOUT' });
    expect(aborted).toBe(true);
  });

  it('respects the caller deadline when it is shorter than the tool timeout', async () => {
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('slow2', { source: 'dynamic' }), (ctx) =>
        sleep(500, ctx.signal).then(() => ({ data: { doubled: 0 } })),
      ),
    );
    const result = await registry.execute(context({ deadline: Date.now() + 30 }), 'slow2', { n: 1 });
    expect(result.error_details).toMatchObject({ code: 'TIMEOUT' });
  });

  it('propagates cancellation from the caller', async () => {
    const controller = new AbortController();
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('wait', { source: 'dynamic' }), (ctx) =>
        sleep(500, ctx.signal).then(() => ({ data: { doubled: 0 } })),
      ),
    );
    const pending = registry.execute(context({ signal: controller.signal }), 'wait', { n: 1 });
    controller.abort();
    expect((await pending).error_details).toMatchObject({ code: 'CANCELLED' });
  });

  it('turns thrown errors and schema-violating output into failed results', async () => {
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('boom', { source: 'dynamic' }), () =>
        Promise.reject(new ToolError('UPSTREAM', 'upstream said no', { status: 502 })),
      ),
    );
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('liar', { source: 'dynamic' }), () =>
        Promise.resolve({ data: { wrong: true } }),
      ),
    );
    expect(await registry.execute(context(), 'boom', { n: 1 })).toMatchObject({
      success: false,
      error: 'upstream said no',
      error_details: { code: 'UPSTREAM', status: 502 },
    });
    expect((await registry.execute(context(), 'liar', { n: 1 })).error_details).toMatchObject({
      code: 'INVALID_OUTPUT',
    });
  });

  it('keeps dynamic tools per tenant, replaces them atomically and notifies listeners', () => {
    const changes: Array<{ tenantId: string | null; names: string[] }> = [];
    registry.onChange((change) => changes.push(change));
    registry.setDynamicTool(
      't1',
      new FakeTool(definition('mine', { source: 'dynamic', version: 1 }), () =>
        Promise.resolve({ data: { doubled: 1 } }),
      ),
    );
    expect(registry.has('t1', 'mine')).toBe(true);
    expect(registry.has('t2', 'mine')).toBe(false);
    expect(registry.list('t2').map((t) => t.name)).toEqual(['double']);

    registry.setDynamicTool(
      't1',
      new FakeTool(definition('mine', { source: 'dynamic', version: 2 }), () =>
        Promise.resolve({ data: { doubled: 2 } }),
      ),
    );
    expect(registry.definition('t1', 'mine')?.version).toBe(2);
    expect(registry.removeDynamicTool('t1', 'mine')).toBe(true);
    expect(registry.has('t1', 'mine')).toBe(false);
    expect(changes.map((c) => c.tenantId)).toEqual(['t1', 't1', 't1']);
  });

  it('refuses a dynamic tool named like a built-in', () => {
    expect(() =>
      registry.setDynamicTool(
        't1',
        new FakeTool(definition('double', { source: 'dynamic' }), () =>
          Promise.resolve({ data: { doubled: 0 } }),
        ),
      ),
    ).toThrow(/built-in/);
  });

  it('marks external tools unavailable without removing them', async () => {
    registry.setExternalTool(
      new FakeTool(definition('srv__echo', { source: 'mcp' }), () =>
        Promise.resolve({ data: { doubled: 0 } }),
      ),
    );
    registry.setExternalAvailability('srv__', false);
    expect(registry.definition('t1', 'srv__echo')?.available).toBe(false);
    expect((await registry.execute(context(), 'srv__echo', { n: 1 })).error_details).toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
  it('compiles the schemas of start-up registrations on first use, and a single registration at once', async () => {
    const compile = jest.spyOn(SchemaValidator.prototype, 'compile');
    try {
      compile.mockClear();
      const broken = (name: string) =>
        new FakeTool(definition(name, { input_schema: { type: 'no-such-type' } }), () =>
          Promise.resolve({ data: {} }),
        );
      registry.replaceDynamicTools('t1', [
        new FakeTool(definition('loaded'), () => Promise.resolve({ data: { doubled: 2 } })),
        broken('loaded_broken'),
      ]);
      expect(compile).not.toHaveBeenCalled();
      expect((await registry.execute(context(), 'loaded', { n: 1 })).success).toBe(true);
      expect(compile).toHaveBeenCalledTimes(2); // input and output, once each
      await registry.execute(context(), 'loaded', { n: 2 });
      expect(compile).toHaveBeenCalledTimes(2);
      expect(() => registry.validateInput('t1', 'loaded_broken', {})).toThrow(
        'tool loaded_broken has an invalid schema',
      );
      expect(() => registry.setDynamicTool('t1', broken('set_broken'))).toThrow(
        'tool set_broken has an invalid schema',
      );
    } finally {
      compile.mockRestore();
    }
  });
});
