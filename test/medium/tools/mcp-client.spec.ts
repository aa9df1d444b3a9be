import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { HealthRegistry } from '@app/platform';
import { McpClientService, ToolContext, ToolRegistry, ToolsModule } from '@app/tools';
import { freePort, ROOT, sleep, startTestContext, TestContext, testBackend } from '@test/support';

const ECHO_SERVER = path.join(ROOT, 'test/support/mcp-echo-server.cjs');

function context(): ToolContext {
  return {
    tenantId: randomUUID(),
    userId: 'u',
    requestId: randomUUID(),
    traceId: randomUUID(),
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
  };
}

async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value) return value;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe(`external MCP servers (${testBackend()})`, () => {
  let ctx: TestContext;
  let registry: ToolRegistry;
  let bootMs: number;

  beforeAll(async () => {
    const closedPort = await freePort();
    const started = Date.now();
    ctx = await startTestContext([ToolsModule], {
      MCP_SERVERS: JSON.stringify([
        { name: 'echo', command: process.execPath, args: [ECHO_SERVER], env: { ECHO_LABEL: 'first' } },
        { name: 'gone', url: `http://127.0.0.1:${closedPort}/mcp` },
        // Starts but never answers the handshake.
        {
          name: 'mute',
          command: process.execPath,
          args: ['-e', 'setInterval(() => {}, 1000)'],
          timeout_ms: 20_000,
        },
      ]),
    });
    bootMs = Date.now() - started;
    registry = ctx.get(ToolRegistry);
  });
  afterAll(() => ctx?.close());

  it('boots without waiting for slow or unreachable servers', () => {
    const states = Object.fromEntries(
      ctx
        .get(McpClientService)
        .status()
        .map((s) => [s.name, s.state]),
    );
    // The mute server's handshake timeout is 20 s; boot did not wait for it.
    expect(states.mute).toBe('connecting');
    expect(bootMs).toBeLessThan(20_000);
  });

  it('registers the server’s tools as <server>__<tool> and calls them', async () => {
    await waitFor(() => registry.definition('any', 'echo__echo')?.available, 'echo__echo');
    const names = registry.list('any').map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo__echo', 'echo__pid', 'echo__fail']));
    expect(registry.definition('any', 'echo__echo')).toMatchObject({
      source: 'mcp',
      kind: 'mcp',
      has_side_effects: false,
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });

    expect(await registry.execute(context(), 'echo__echo', { text: '안녕' })).toMatchObject({
      success: true,
      data: { echo: '안녕', server: 'first' },
      metadata: { mcp_server: 'echo' },
    });
    expect(await registry.execute(context(), 'echo__echo', { text: 5 })).toMatchObject({
      success: false,
      error_details: { code: 'INVALID_INPUT' },
    });
    expect(await registry.execute(context(), 'echo__fail', {})).toMatchObject({
      success: false,
      error: 'this tool always fails',
      error_details: { code: 'MCP_TOOL_ERROR', server: 'echo' },
    });
  });

  it('marks a dead server’s tools unavailable, keeps the registry working, and reconnects', async () => {
    await waitFor(() => registry.definition('any', 'echo__pid')?.available, 'echo__pid');
    const first = await registry.execute(context(), 'echo__pid', {});
    const pid = (first.data as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');

    await waitFor(() => registry.definition('any', 'echo__echo')?.available === false, 'unavailable');
    expect(await registry.execute(context(), 'echo__echo', { text: 'x' })).toMatchObject({
      success: false,
      error_details: { code: 'UNAVAILABLE' },
    });
    const health = await ctx.get(HealthRegistry).report();
    expect(health.checks.mcp_servers.status).toBe('degraded');

    await waitFor(() => registry.definition('any', 'echo__echo')?.available, 'reconnected');
    const again = await registry.execute(context(), 'echo__pid', {});
    expect(again.success).toBe(true);
    expect((again.data as { pid: number }).pid).not.toBe(pid);
  });

  it('reports unreachable servers with their error', () => {
    const gone = ctx
      .get(McpClientService)
      .status()
      .find((s) => s.name === 'gone');
    expect(gone).toMatchObject({ state: expect.stringMatching(/disconnected|connecting/), tools: 0 });
    expect(registry.list('any').some((t) => t.name.startsWith('gone__'))).toBe(false);
  });
});
