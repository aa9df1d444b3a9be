import { runAsTenant } from '@app/platform';
import { PlannerService } from '@app/planner';
import { randomUUID } from 'node:crypto';
import { AgentRequest, AssistantModule, ToolCallingAgentService } from '@app/assistant';
import { AuthService } from '@app/platform';
import { Tool, ToolContext, ToolRegistry } from '@app/tools';
import { FakeLlmServer, sleep, startTestContext, TestContext, testBackend } from '@test/support';

interface RecordedRun {
  input: Record<string, unknown>;
  userId: string;
  started: number;
  ended: number;
}

class RecordingTool implements Tool {
  readonly runs: RecordedRun[] = [];
  readonly definition;

  constructor(
    name: string,
    description: string,
    properties: Record<string, unknown>,
    private readonly behaviour: (input: Record<string, unknown>) => unknown,
    extra: { required?: string[]; sideEffects?: boolean } = {},
  ) {
    this.definition = {
      name,
      description,
      kind: 'test',
      input_schema: {
        type: 'object',
        properties,
        required: extra.required ?? [],
        additionalProperties: false,
      },
      output_schema: null,
      has_side_effects: extra.sideEffects ?? false,
      timeout_ms: 5000,
      source: 'dynamic' as const,
    };
  }

  async execute(context: ToolContext, input: Record<string, unknown>) {
    const run: RecordedRun = { input, userId: context.userId, started: Date.now(), ended: 0 };
    this.runs.push(run);
    try {
      return { data: await this.behaviour(input) };
    } finally {
      run.ended = Date.now();
    }
  }
}

describe(`tool-calling agent against an OpenAI-compatible server (${testBackend()})`, () => {
  let llm: FakeLlmServer;
  let ctx: TestContext;
  let agent: ToolCallingAgentService;
  let posts: RecordingTool;
  let weather: RecordingTool;
  let slow: RecordingTool[];
  let publish: RecordingTool;
  // A real tenant: plan runs are stored as stage runs of the tenant.
  let TENANT: string;

  const run = (prompt: string, extra: Partial<AgentRequest> = {}) =>
    agent.execute({
      tenantId: TENANT,
      userId: '42',
      callerId: 'svc',
      requestId: randomUUID(),
      traceId: randomUUID(),
      prompt,
      context: {},
      maxIterations: 5,
      ...extra,
    });
  const allRuns = () => [posts, weather, publish, ...slow].flatMap((tool) => tool.runs);
  const toolMessages = (index: number) =>
    (
      llm.chatRequests[index].body.messages as Array<{ role: string; content: string; tool_call_id?: string }>
    ).filter((m) => m.role === 'tool');

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    ctx = await startTestContext([AssistantModule], {
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '1',
      LLM_RETRY_BASE_DELAY_MS: '10',
    });
    TENANT = (await ctx.get(AuthService).createTenant('agent-spec', 'Agent spec', undefined)).tenant.id;
    agent = ctx.get(ToolCallingAgentService);
    const registry = ctx.get(ToolRegistry);
    posts = new RecordingTool(
      'get_user_blog_posts',
      "Get the user's blog posts. 사용자의 블로그 글 목록 조회.",
      { user_id: { type: 'integer' }, limit: { type: 'integer', default: 10 } },
      (input) => ({ posts: [{ title: 'Kafka lag', author: input.user_id }], total: 1 }),
      { required: ['user_id'] },
    );
    weather = new RecordingTool(
      'get_weather',
      'Current weather of a city',
      { city: { type: 'string' } },
      (input) => ({ city: input.city, celsius: 21 }),
      { required: ['city'] },
    );
    publish = new RecordingTool(
      'publish_post',
      'Publish a blog post',
      { title: { type: 'string' }, user_id: { type: 'string' } },
      () => ({ id: 'p-1' }),
      { sideEffects: true },
    );
    slow = ['slow_a', 'slow_b', 'slow_c'].map(
      (name) =>
        new RecordingTool(name, `Slow lookup ${name}`, {}, async () => {
          await sleep(400);
          return { name };
        }),
    );
    for (const tool of [posts, weather, publish, ...slow]) registry.setDynamicTool(TENANT, tool);
    // A running service trains the planner in the background after a publish; these tools were set directly.
    await runAsTenant(TENANT, () => ctx.get(PlannerService).prepare(TENANT));
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.reset();
    for (const tool of [posts, weather, publish, ...slow]) tool.runs.length = 0;
  });

  it('answers directly when the model needs no tool, offering the tools without user_id', async () => {
    llm.enqueue(FakeLlmServer.text('Kubernetes is a container orchestrator.'));
    const result = await run('What is Kubernetes?', { context: { locale: 'en' } });
    expect(result).toMatchObject({
      ok: true,
      mode: 'llm',
      tool_calls: [],
      final_response: 'Kubernetes is a container orchestrator.',
      model_used: 'fake-model',
      user_id: '42',
      iterations: 1,
      max_iterations_reached: false,
    });
    expect(allRuns()).toHaveLength(0);
    const body = llm.chatRequests[0].body;
    const offered = body.tools.find((t: any) => t.function.name === 'get_user_blog_posts');
    expect(offered.function.parameters.properties).not.toHaveProperty('user_id');
    expect(offered.function.parameters.required).toEqual([]);
    expect(body.messages[1].content).toContain('"locale":"en"');
  });

  it('runs one tool, injects the request user_id and feeds the result back', async () => {
    llm.enqueue(
      FakeLlmServer.toolCall('get_user_blog_posts', { limit: 3 }),
      FakeLlmServer.text('Here is a draft in your style.'),
    );
    const result = await run('내 블로그 스타일로 초안 써줘');
    expect(result.final_response).toBe('Here is a draft in your style.');
    expect(result.tool_calls).toEqual([
      expect.objectContaining({
        tool: 'get_user_blog_posts',
        params: { limit: 3, user_id: 42 },
        success: true,
        result: { posts: [{ title: 'Kafka lag', author: 42 }], total: 1 },
        iteration: 1,
      }),
    ]);
    expect(posts.runs[0]).toMatchObject({ input: { limit: 3, user_id: 42 }, userId: '42' });
    const fed = toolMessages(1);
    expect(fed).toHaveLength(1);
    expect(JSON.parse(fed[0].content)).toMatchObject({ success: true, data: { total: 1 } });
    expect(fed[0].tool_call_id).toBe(result.tool_calls[0].id);
  });

  it('ignores a user_id the model writes, for tools that declare it and tools that do not', async () => {
    llm.enqueue(
      {
        toolCalls: [
          { name: 'get_user_blog_posts', arguments: JSON.stringify({ user_id: 999, limit: 1 }) },
          { name: 'get_weather', arguments: JSON.stringify({ city: 'Seoul', user_id: 999 }) },
        ],
      },
      FakeLlmServer.text('done'),
    );
    const result = await run('show my posts and the weather', { userId: '7' });
    expect(posts.runs[0].input).toEqual({ user_id: 7, limit: 1 });
    expect(weather.runs[0].input).toEqual({ city: 'Seoul' });
    expect(weather.runs[0].userId).toBe('7');
    expect(result.tool_calls.map((c) => c.params)).toEqual([{ user_id: 7, limit: 1 }, { city: 'Seoul' }]);
  });

  it('runs several tools over several turns until the final answer', async () => {
    llm.enqueue(
      FakeLlmServer.toolCall('get_weather', { city: 'Seoul' }),
      { content: 'Now the posts.', toolCalls: [{ name: 'get_user_blog_posts', arguments: '{}' }] },
      FakeLlmServer.text('Sunny, and you wrote about Kafka.'),
    );
    const result = await run('weather then my posts');
    expect(result.tool_calls.map((c) => [c.tool, c.iteration])).toEqual([
      ['get_weather', 1],
      ['get_user_blog_posts', 2],
    ]);
    expect(result.iterations).toBe(3);
    expect(result.thought).toBe('Now the posts.');
    expect(llm.chatRequests).toHaveLength(3);
    expect(toolMessages(2)).toHaveLength(2);
    expect(result.llm_calls.map((c) => c.purpose)).toEqual(['tools', 'tools', 'tools']);
  });

  it('runs the calls of one turn in parallel', async () => {
    llm.enqueue(
      {
        toolCalls: ['slow_a', 'slow_b', 'slow_c'].map((name) => ({ name, arguments: '{}' })),
      },
      FakeLlmServer.text('all three'),
    );
    const result = await run('run the three slow lookups');
    expect(result.tool_calls.every((c) => c.success)).toBe(true);
    const runs = slow.map((tool) => tool.runs[0]);
    // Overlap: every run started before any of them ended (sequential runs could not).
    expect(Math.max(...runs.map((r) => r.started))).toBeLessThan(Math.min(...runs.map((r) => r.ended)));
    expect(result.timings.tools_ms).toBeLessThan(3 * 400);
  });

  it('stops at max_iterations and answers from what was gathered, with a warning', async () => {
    llm.setDefault((request) =>
      request.body.tools
        ? FakeLlmServer.toolCall('get_weather', { city: 'Busan' })
        : FakeLlmServer.text('Summary: Busan is 21 degrees.'),
    );
    const result = await run('keep checking the weather', { maxIterations: 2 });
    expect(result).toMatchObject({
      ok: true,
      max_iterations_reached: true,
      iterations: 2,
      final_response: 'Summary: Busan is 21 degrees.',
    });
    expect(result.tool_calls).toHaveLength(2);
    expect(result.warnings.join(' ')).toContain('max_iterations (2) reached');
    expect(result.llm_calls.map((c) => c.purpose)).toEqual(['tools', 'tools', 'final_response']);
    expect(llm.chatRequests[2].body.tools).toBeUndefined();
  });

  it('records unknown tools and malformed arguments as failed calls and lets the model recover', async () => {
    llm.enqueue(
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: '{}' },
          { name: 'get_weather', arguments: '{not json' },
        ],
      },
      FakeLlmServer.text('Sorry, I could not look that up.'),
    );
    const result = await run('weather?');
    expect(result.ok).toBe(false);
    expect(result.tool_calls.map((c) => [c.tool, c.success, (c.result as any).details.code])).toEqual([
      ['no_such_tool', false, 'UNKNOWN_TOOL'],
      ['get_weather', false, 'INVALID_ARGUMENTS'],
    ]);
    expect(toolMessages(1).map((m) => JSON.parse(m.content).success)).toEqual([false, false]);
    expect(result.final_response).toBe('Sorry, I could not look that up.');
  });

  it('falls back to deterministic tool selection and a template answer when the model is down', async () => {
    llm.setDefault(FakeLlmServer.error(503));
    const result = await run('내 블로그 글 목록 보여줘');
    expect(result.mode).toBe('fallback');
    expect(result.model_used).toBeNull();
    expect(result.tool_calls).toEqual([
      expect.objectContaining({ tool: 'get_user_blog_posts', success: true, params: { user_id: 42 } }),
    ]);
    expect(posts.runs[0].input).toMatchObject({ user_id: 42 });
    expect(result.final_response).toContain('get_user_blog_posts');
    expect(result.warnings.join(' ')).toContain('The language model was not used');
    expect(result.llm_calls).toEqual([expect.objectContaining({ ok: false, attempts: 2 })]);
    expect(publish.runs).toHaveLength(0);
  });

  it('never runs a side-effect tool in the fallback without a confirmation (or its inputs)', async () => {
    llm.setDefault(FakeLlmServer.error(500));
    const result = await run('publish post titled hello');
    expect(result.mode).toBe('fallback');
    expect(publish.runs).toHaveLength(0);
    for (const call of result.tool_calls.filter((c) => c.tool === 'publish_post'))
      expect(call.success).toBe(false);
  });

  it('keeps the gathered results when the model fails after tool calls', async () => {
    llm.enqueue(FakeLlmServer.toolCall('get_weather', { city: 'Seoul' }));
    llm.setDefault(FakeLlmServer.error(500));
    const result = await run('weather in Seoul');
    expect(result.mode).toBe('llm');
    expect(result.tool_calls).toHaveLength(1);
    expect(result.final_response).toContain('get_weather');
    expect(result.final_response).toContain('Seoul');
    expect(result.warnings.join(' ')).toContain('The model failed after the tool calls');
  });
});
