import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolAssetSpec } from '@app/asset-registry';
import { AuthService } from '@app/platform';
import { HttpToolFactory, ToolRegistry } from '@app/tools';
import { sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

function postsTool(url: string, name = 'blog_posts'): ToolAssetSpec {
  return {
    name,
    description: 'Blog posts of the calling user',
    kind: 'http',
    tool_config: {
      method: 'GET',
      url: `${url}/posts?user_id={{context.user_id}}`,
      query: { limit: '{{input.limit}}' },
    },
    tool_input_schema: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, default: 3 } },
      additionalProperties: false,
    },
    tool_output_schema: { type: 'object', properties: { posts: { type: 'array' } }, required: ['posts'] },
  };
}

async function connect(
  app: TestApp,
  key: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

describe(`MCP over streamable HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let defaultTenantId: string;
  let betaKey: string;
  let readerKey: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    stand = await startStandIn((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      sendJson(res, 200, {
        posts: [{ user: url.searchParams.get('user_id'), limit: url.searchParams.get('limit') }],
      });
    });
    t = await startTestApp({ HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}` });
    defaultTenantId = (await t.app.get(AuthService).getTenant('default')).id;
    betaKey = (await t.request('POST', '/api/tenants', { body: { slug: 'beta' } })).body.secret;
    readerKey = (await t.request('POST', '/api/keys', { body: { name: 'viewer', role: 'reader' } })).body
      .secret;
    const tool = t.app.get(HttpToolFactory).create(postsTool(stand.url));
    t.app.get(ToolRegistry).setDynamicTool(defaultTenantId, tool);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await t?.close();
    await stand?.close();
  });

  const open = async (key: string) => {
    const session = await connect(t, key);
    clients.push(session.client);
    return session;
  };

  it('lists the tenant’s tools with their JSON schemas and calls them as the caller', async () => {
    const { client } = await open(t.adminKey);
    const { tools } = await client.listTools();
    const listed = tools.find((tool) => tool.name === 'blog_posts');
    expect(listed).toMatchObject({
      description: 'Blog posts of the calling user',
      inputSchema: { type: 'object', properties: { limit: { type: 'integer' } } },
      outputSchema: { type: 'object', required: ['posts'] },
      annotations: { readOnlyHint: true },
    });

    const result = await client.callTool({ name: 'blog_posts', arguments: { limit: 2 } });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ posts: [{ user: 'admin', limit: '2' }] });
    const content = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(content[0].text)).toEqual(result.structuredContent);

    const invalid = await client.callTool({ name: 'blog_posts', arguments: { limit: 0 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.parse((invalid.content as Array<{ text: string }>)[0].text)).toMatchObject({
      error_details: { code: 'INVALID_INPUT' },
    });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/not found/);
  });

  it('keeps one tenant’s tools invisible and uncallable to another tenant', async () => {
    const { client } = await open(betaKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('blog_posts');
    await expect(client.callTool({ name: 'blog_posts', arguments: {} })).rejects.toThrow(/not found/);
  });

  it('notifies a tenant’s sessions (only) when its tool set changes', async () => {
    const alpha = await open(t.adminKey);
    const beta = await open(betaKey);
    let betaNotified = 0;
    beta.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      betaNotified++;
    });
    const notified = new Promise<void>((resolve) =>
      alpha.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    // Give the clients time to open their GET notification streams.
    await sleep(300);
    const registry = t.app.get(ToolRegistry);
    registry.setDynamicTool(
      defaultTenantId,
      t.app.get(HttpToolFactory).create(postsTool(stand.url, 'blog_posts_v2')),
    );
    await notified;
    expect((await alpha.client.listTools()).tools.map((tool) => tool.name)).toContain('blog_posts_v2');
    await sleep(300);
    expect(betaNotified).toBe(0);

    registry.removeDynamicTool(defaultTenantId, 'blog_posts_v2');
    await sleep(300);
    expect((await alpha.client.listTools()).tools.map((tool) => tool.name)).not.toContain('blog_posts_v2');
  });

  it('lets a reader list but not call tools', async () => {
    const { client } = await open(readerKey);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('blog_posts');
    const result = await client.callTool({ name: 'blog_posts', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toMatchObject({
      error_details: { code: 'FORBIDDEN' },
    });
  });

  it('needs an API key, and a session belongs to the key that opened it', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const anonymous = await t.request('POST', '/mcp', {
      key: null,
      body: initialize,
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: 'UNAUTHENTICATED' });

    const { transport } = await open(t.adminKey);
    const hijack = await t.request('POST', '/mcp', {
      key: betaKey,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      headers: {
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    expect(hijack.status).toBe(404);

    const noSession = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(noSession.status).toBe(400);
  });

  it('closes a session on DELETE', async () => {
    const { client, transport } = await open(t.adminKey);
    const id = transport.sessionId!;
    await transport.terminateSession();
    const after = await t.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id },
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('closes a session on DELETE while the same session’s GET stream races it', async () => {
    // The client opens its GET stream right after initializing, so a DELETE soon after races it. A GET
    // that saw the session's record already gone closed the transport under the DELETE, which then
    // answered 404 (about 1 in 100 sessions).
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++) {
      const { client, transport } = await open(t.adminKey);
      const headers = {
        authorization: `Bearer ${t.adminKey}`,
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      };
      const deleting = fetch(`${t.url}/mcp`, { method: 'DELETE', headers });
      await sleep(i % 6);
      const stream = new AbortController();
      const racing = fetch(`${t.url}/mcp`, {
        headers: { ...headers, accept: 'text/event-stream' },
        signal: stream.signal,
      }).catch(() => undefined);
      statuses.push((await deleting).status);
      stream.abort();
      await racing;
      await client.close();
    }
    expect(statuses).toEqual(statuses.map(() => 200));
  });
});
