import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocumentIngestionService } from '@app/documents';
import { startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

/**
 * What the MCP server offers besides the registry's tools: the tenant's documents as resources, its
 * published prompt assets as prompts, and its published stage assets as tools (also in /ops/tools).
 */
describe(`MCP resources, prompts and stage tools (${testBackend()})`, () => {
  let t: TestApp;
  let stand: StandInServer;
  let admin: string;
  let other: string;
  let tenantId: string;
  const clients: Client[] = [];

  const open = async (key: string): Promise<Client> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const publish = async (body: Record<string, unknown>) => {
    const created = await t.request('POST', '/api/assets', { key: admin, body });
    expect(created.status).toBe(201);
    const published = await t.request('POST', `/api/assets/${created.body.id}/publish`, {
      key: admin,
      body: {},
    });
    expect(published.status).toBe(200);
  };

  beforeAll(async () => {
    stand = await startStandIn((_req, res) => sendJson(res, 200, { ok: true }));
    t = await startTestApp({
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${stand.port}`,
      DOCUMENTS_WORKER_CONCURRENCY: '0',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'mcp-content' } });
    admin = created.body.secret as string;
    tenantId = created.body.tenant.id as string;
    other = (await t.request('POST', '/api/tenants', { body: { slug: 'mcp-content-other' } })).body
      .secret as string;
    const ingestion = t.app.get(DocumentIngestionService);
    await ingestion.create(tenantId, {
      filename: 'runbook.md',
      content: '# Runbook\n\nRestart the gateway.',
    });
    await ingestion.create(tenantId, { filename: 'oncall.md', content: '# On call\n\nPage the SRE team.' });
    await ingestion.processQueue();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await t?.close();
    await stand?.close();
  });

  it("offers the tenant's documents as read-only resources, in pages, and no other tenant's", async () => {
    const client = await open(admin);
    const { resources, nextCursor } = await client.listResources();
    expect(nextCursor).toBeUndefined();
    expect(resources.map((r) => r.name).sort()).toEqual(['oncall.md', 'runbook.md']);
    const runbook = resources.find((r) => r.name === 'runbook.md')!;
    expect(runbook.uri).toMatch(/^ops:\/\/documents\/[0-9a-f-]{36}$/);
    const second = await client.listResources({ cursor: '1' });
    expect(second.resources).toHaveLength(1);
    expect(resources.map((r) => r.uri)).toContain(second.resources[0].uri);
    await expect(client.listResources({ cursor: 'x' })).rejects.toThrow(/Invalid cursor/);

    const read = await client.readResource({ uri: runbook.uri });
    expect(read.contents[0]).toMatchObject({ uri: runbook.uri, mimeType: 'text/plain' });
    expect((read.contents[0] as { text: string }).text).toContain('Restart the gateway.');

    const stranger = await open(other);
    expect((await stranger.listResources()).resources).toEqual([]);
    await expect(stranger.readResource({ uri: runbook.uri })).rejects.toThrow(/not found/);
    await expect(client.readResource({ uri: 'ops://documents/../etc' })).rejects.toThrow(/not found/);
  });

  it('offers published prompt assets as prompts with their arguments, filled on get', async () => {
    await publish({
      asset_type: 'prompt',
      name: 'incident-summary',
      description: 'Summarise an incident for a service',
      scope: 'ops',
      engine: 'plain',
      template: 'Summarise the incident on {{service}} for {{ input.audience }}.',
      input_schema: {
        type: 'object',
        required: ['service'],
        properties: { service: { type: 'string', description: 'The affected service' } },
      },
    });
    const client = await open(admin);
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'incident-summary',
        description: 'Summarise an incident for a service',
        arguments: [
          { name: 'service', description: 'The affected service', required: true },
          { name: 'audience', required: false },
        ],
      }),
    ]);
    const prompt = await client.getPrompt({
      name: 'incident-summary',
      arguments: { service: 'payment-gateway', audience: 'executives' },
    });
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Summarise the incident on payment-gateway for executives.' },
      },
    ]);
    await expect(client.getPrompt({ name: 'incident-summary', arguments: {} })).rejects.toThrow(/service/);
    const stranger = await open(other);
    expect((await stranger.listPrompts()).prompts).toEqual([]);
    await expect(stranger.getPrompt({ name: 'incident-summary' })).rejects.toThrow(/not found/);
  });

  it('offers a published stage as a tool (registry, /ops/tools, MCP) that runs as a stored stage run', async () => {
    await publish({
      asset_type: 'stage',
      name: 'items-by-env',
      description: 'Configuration items of one environment',
      content: {
        params_schema: {
          type: 'object',
          required: ['environment'],
          additionalProperties: false,
          properties: { environment: { enum: ['prod', 'staging', 'dev'] } },
        },
        stages: [
          {
            stage_name: 'find',
            tools: [
              {
                id: 'items',
                tool_name: 'ci_lookup',
                input: { filters: { environment: { $ref: 'params.environment' } }, limit: 2 },
              },
            ],
            output_mapping: { count: { $ref: 'items.data.total' } },
          },
        ],
      },
    });
    const listed = await t.request('GET', '/ops/tools/items-by-env', { key: admin });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      name: 'items-by-env',
      tool_type: 'stage',
      has_side_effects: false,
      input_schema: { required: ['environment'] },
    });
    const tools = (await t.request('GET', '/ops/tools', { key: other })).body.tools as Array<{
      name: string;
    }>;
    expect(tools.map((tool) => tool.name)).not.toContain('items-by-env');

    const client = await open(admin);
    const mcpTool = (await client.listTools()).tools.find((tool) => tool.name === 'items-by-env');
    expect(mcpTool).toMatchObject({
      description: 'Configuration items of one environment',
      inputSchema: { type: 'object', required: ['environment'] },
      annotations: { readOnlyHint: true },
    });
    const result = await client.callTool({ name: 'items-by-env', arguments: { environment: 'staging' } });
    expect(result.isError).toBe(false);
    const run = JSON.parse((result.content as Array<{ text: string }>)[0].text);
    expect(run).toMatchObject({ stage_name: 'items-by-env', status: 'ok', steps: [{ id: 'items' }] });
    const stored = await t.request('GET', `/ops/stage/runs/${run.run_id}`, { key: admin });
    expect(stored.status).toBe(200);
    expect(stored.body.results[0].input).toEqual({ filters: { environment: 'staging' }, limit: 2 });
    const invalid = await client.callTool({ name: 'items-by-env', arguments: { environment: 'moon' } });
    expect(invalid.isError).toBe(true);
  });

  it('marks a stage tool with side effects when one of its steps has them, and holds it for a person', async () => {
    await publish({
      asset_type: 'tool',
      name: 'restart_service',
      description: 'Restarts a service',
      tool_type: 'http',
      tool_config: { method: 'POST', url: `${stand.url}/restart` },
      tool_input_schema: { type: 'object', properties: {} },
    });
    await publish({
      asset_type: 'stage',
      name: 'restart-all',
      content: { stages: [{ stage_name: 'restart', tools: [{ tool_name: 'restart_service' }] }] },
    });
    const listed = await t.request('GET', '/ops/tools/restart-all', { key: admin });
    expect(listed.body).toMatchObject({ tool_type: 'stage', has_side_effects: true });
    const client = await open(admin);
    const held = await client.callTool({ name: 'restart-all', arguments: {} });
    expect(held.isError).toBe(true);
    expect(JSON.parse((held.content as Array<{ text: string }>)[0].text)).toMatchObject({
      error_details: { code: 'CONFIRMATION_REQUIRED' },
      pending_action: { tool: 'restart-all' },
    });
    expect(stand.requests).toHaveLength(0);
  });

  it("follows a step tool's side effects when the tool is republished", async () => {
    const created = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'tool',
        name: 'ping_service',
        description: 'Pings a service',
        tool_type: 'http',
        tool_config: { method: 'GET', url: `${stand.url}/ping` },
        tool_input_schema: { type: 'object', properties: {} },
      },
    });
    expect(created.status).toBe(201);
    const publishTool = () =>
      t.request('POST', `/api/assets/${created.body.id}/publish`, { key: admin, body: {} });
    expect((await publishTool()).status).toBe(200);
    await publish({
      asset_type: 'stage',
      name: 'ping-all',
      content: { stages: [{ stage_name: 'ping', tools: [{ tool_name: 'ping_service' }] }] },
    });
    const flag = async () =>
      (await t.request('GET', '/ops/tools/ping-all', { key: admin })).body.has_side_effects as boolean;
    expect(await flag()).toBe(false);
    const patched = await t.request('PATCH', `/api/assets/${created.body.id}`, {
      key: admin,
      body: { has_side_effects: true },
    });
    expect(patched.status).toBe(200);
    expect((await publishTool()).status).toBe(200);
    expect(await flag()).toBe(true);

    // A stage named like a tool asset leaves that tool in place, published and archived.
    const clash = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'stage',
        name: 'ping_service',
        content: { stages: [{ stage_name: 'ping', tools: [{ tool_name: 'ping_service' }] }] },
      },
    });
    expect(
      (await t.request('POST', `/api/assets/${clash.body.id}/publish`, { key: admin, body: {} })).status,
    ).toBe(200);
    const toolType = async () =>
      (await t.request('GET', '/ops/tools/ping_service', { key: admin })).body.tool_type as string;
    expect(await toolType()).toBe('http');
    expect(
      (await t.request('POST', `/api/assets/${clash.body.id}/archive`, { key: admin, body: {} })).status,
    ).toBe(200);
    expect(await toolType()).toBe('http');
  });
});
