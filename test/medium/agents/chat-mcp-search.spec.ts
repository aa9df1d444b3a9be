import path from 'node:path';
import { AssistantModule, ChatService } from '@app/assistant';
import { AuthService } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import { ROOT, sleep, startTestContext, TestContext, testBackend } from '@test/support';

const SEARCH_SERVER = path.join(ROOT, 'test/support/mcp-search-server.cjs');

async function startWith(env: Record<string, string>): Promise<TestContext> {
  const ctx = await startTestContext([AssistantModule], {
    LLM_BASE_URL: '',
    CHAT_RETRY_BASE_DELAY_MS: '0',
    MCP_SERVERS: JSON.stringify([{ name: 'kb', command: process.execPath, args: [SEARCH_SERVER] }]),
    ...env,
  });
  const registry = ctx.get(ToolRegistry);
  const deadline = Date.now() + 30_000;
  while (!registry.definition('any', 'kb__search_vector_db')?.available) {
    if (Date.now() > deadline) throw new Error('the MCP search server did not come up');
    await sleep(50);
  }
  return ctx;
}

describe(`chat search through MCP tools (${testBackend()})`, () => {
  let ctx: TestContext;
  let tenantId: string;

  beforeAll(async () => {
    ctx = await startWith({
      CHAT_INTERNAL_SEARCH_MCP_TOOL: 'kb__search_vector_db',
      CHAT_WEB_SEARCH_MCP_TOOL: 'kb__web',
    });
    tenantId = (await ctx.get(AuthService).createTenant('chat-mcp', 'Chat MCP', undefined)).tenant.id;
  }, 60_000);
  afterAll(() => ctx?.close());

  it('searches the configured MCP tool for the internal search and cites its results', async () => {
    const result = await ctx.get(ChatService).chat({
      tenantId,
      userId: 'alice',
      message: 'How fast does the on-call engineer acknowledge a page?',
    });
    expect(result).toMatchObject({
      route: 'INTERNAL_SEARCH',
      answer_source: 'extractive',
      tool_calls: [{ tool: 'search_documents', success: true }],
    });
    expect(result.citations[0]).toMatchObject({ kind: 'document', document_name: 'on-call.md' });
    expect(result.answer).toContain('five minutes');
  });

  it('web search through an MCP tool keeps http(s) results only', async () => {
    const web = await ctx.get(ChatService).chat({
      tenantId,
      userId: 'alice',
      message: 'search the web for the latest postgres news',
    });
    expect(web).toMatchObject({
      route: 'WEB_SEARCH',
      tool_calls: [{ tool: 'web_search', success: true, result_count: 1 }],
    });
    expect(web.citations.every((c) => c.kind === 'web' && c.url === 'https://example.org/news')).toBe(true);
  });
});

describe(`chat search through a failing MCP tool (${testBackend()})`, () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await startWith({ CHAT_INTERNAL_SEARCH_MCP_TOOL: 'kb__broken', CHAT_SEARCH_RETRIES: '1' });
  }, 60_000);
  afterAll(() => ctx?.close());

  it('retries it as configured and answers honestly that it could not search', async () => {
    const tenantId = (await ctx.get(AuthService).createTenant('chat-mcp-broken', 'Broken', undefined)).tenant
      .id;
    const result = await ctx.get(ChatService).chat({
      tenantId,
      userId: 'alice',
      message: 'How fast does the on-call engineer acknowledge a page?',
    });
    expect(result).toMatchObject({
      answer_source: 'template',
      citations: [],
      tool_calls: [{ tool: 'search_documents', success: false, attempts: 2 }],
    });
    expect(result.tool_calls[0].error).toContain('index unavailable');
  });
});
