import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BlogToolsPublisher } from '@app/assistant';
import { ToolRegistry } from '@app/tools';
import { FakeLlmServer, sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const BLOG_KEY = 'blog-service-key-0123456789';
const ROUTE = '/internal/v1/llm/execute';

describe(`tool-calling agent over HTTP with the blog tools (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let blog: StandInServer;
  let tenantId: string;
  let service: string;
  let operator: string;
  let reader: string;
  let admin: string;

  const execute = (body: Record<string, unknown>, key = service) => t.request('POST', ROUTE, { key, body });
  const blogRequests = () => blog.requests.map((r) => ({ ...r, url: new URL(r.path, blog.url) }));

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    blog = await startStandIn((req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
      const url = new URL(req.url ?? '/', 'http://blog');
      if (url.pathname !== '/api/v1/blog/posts') return sendJson(res, 404, { error: 'no route' });
      if (req.method === 'GET') {
        return sendJson(res, 200, {
          posts: [
            {
              id: 11,
              title: 'Kafka consumer lag, explained',
              tags: ['kafka'],
              author: url.searchParams.get('user_id'),
            },
          ],
          total: 1,
          limit: Number(url.searchParams.get('limit')),
          offset: Number(url.searchParams.get('offset')),
        });
      }
      return sendJson(res, 201, { article_id: 77, url: 'https://blog.example/p/77' });
    });
    t = await startTestApp({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '1',
      LLM_RETRY_BASE_DELAY_MS: '10',
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blog.port}`,
      OPS_SECRET_BLOG_API_KEY: BLOG_KEY,
      SECRET_ENV_GRANTS: 'blogco:OPS_SECRET_BLOG_API_KEY',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'blogco' } });
    tenantId = created.body.tenant.id;
    admin = created.body.secret;
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: role, role } })).body
        .secret as string;
    [service, operator, reader] = [await key('service'), await key('operator'), await key('reader')];

    const published = await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    expect(published.map((p) => [p.name, p.outcome, p.version])).toEqual([
      ['get_user_blog_posts', 'created', 1],
      ['post_blog_article', 'created', 1],
    ]);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && !registry.has(tenantId, 'post_blog_article'); i++) await sleep(20);
    expect(registry.definition(tenantId, 'get_user_blog_posts')).toMatchObject({
      source: 'dynamic',
      version: 1,
    });
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await blog?.close();
  });
  beforeEach(() => {
    llm.reset();
    blog.requests.length = 0;
  });

  it('publishing again changes nothing; another backend makes new versions', async () => {
    const publisher = t.app.get(BlogToolsPublisher);
    const again = await publisher.publish({ tenantId, userId: 'test' }, blog.url);
    expect(again.map((p) => p.outcome)).toEqual(['unchanged', 'unchanged']);
    const moved = await publisher.publish({ tenantId, userId: 'test' }, 'http://blog-v2.internal');
    expect(moved.map((p) => [p.outcome, p.version])).toEqual([
      ['updated', 2],
      ['updated', 2],
    ]);
    await publisher.publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && registry.definition(tenantId, 'post_blog_article')?.version !== 3; i++)
      await sleep(20);
    expect(registry.definition(tenantId, 'get_user_blog_posts')?.version).toBe(3);
  });

  it('needs a service or admin key', async () => {
    const body = { user_id: 42, prompt: 'hello' };
    expect((await execute(body, operator)).status).toBe(403);
    expect((await execute(body, reader)).status).toBe(403);
    expect((await t.request('POST', ROUTE, { key: null, body })).status).toBe(401);
    llm.setDefault(FakeLlmServer.text('hi'));
    expect((await execute(body, admin)).status).toBe(200);
    const ok = await execute(body, service);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, final_response: 'hi', tool_calls: [], user_id: '42' });
  });

  it('rejects bad requests with field-named 400s', async () => {
    for (const [body, field] of [
      [{ prompt: 'x' }, 'user_id'],
      [{ user_id: 1, prompt: '  ' }, 'prompt'],
      [{ user_id: 1, prompt: 'x', max_iterations: 0 }, 'max_iterations'],
      [{ user_id: 1.5, prompt: 'x' }, 'user_id'],
      [{ user_id: 1, prompt: 'x', context: 'text' }, 'context'],
      [{ user_id: 1, prompt: 'x', extra: true }, 'extra'],
    ] as const) {
      const res = await execute(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), requestId: expect.any(String) });
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect(llm.chatRequests).toHaveLength(0);
  });

  it('get_user_blog_posts sends GET with the request user, limit, offset and the key header', async () => {
    llm.enqueue(
      FakeLlmServer.toolCall('get_user_blog_posts', { limit: 5, offset: 10, user_id: 999 }),
      FakeLlmServer.text('# Draft\nIn the style of your Kafka post...'),
    );
    const res = await execute({
      user_id: 42,
      prompt: '내 블로그 글 스타일로 쿠버네티스 업그레이드 후기 초안을 써줘',
      context: { source: 'editor' },
      max_iterations: 3,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      model_used: 'fake-model',
      final_response: '# Draft\nIn the style of your Kafka post...',
      tool_calls: [
        {
          tool: 'get_user_blog_posts',
          params: { limit: 5, offset: 10, user_id: '42' },
          success: true,
          result: { total: 1, posts: [{ id: 11, author: '42' }] },
        },
      ],
    });
    const [request] = blogRequests();
    expect(request.method).toBe('GET');
    expect(request.url.pathname).toBe('/api/v1/blog/posts');
    expect(Object.fromEntries(request.url.searchParams)).toEqual({ user_id: '42', limit: '5', offset: '10' });
    expect(request.headers['x-user-api-key']).toBe(BLOG_KEY);
    expect(request.body).toBe('');
    const offered = llm.chatRequests[0].body.tools.map((tool: any) => tool.function);
    const getPosts = offered.find((f: any) => f.name === 'get_user_blog_posts');
    expect(Object.keys(getPosts.parameters.properties).sort()).toEqual(['limit', 'offset']);
    expect(JSON.stringify(res.body)).not.toContain(BLOG_KEY);
  });

  it('post_blog_article asked for by the model is held, not posted; an operator confirms it and it posts', async () => {
    const article = {
      title: 'K8s 1.31 upgrade notes',
      markdown: '# Notes\n- drained nodes',
      tags: ['k8s', 'ops'],
    };
    llm.enqueue(
      FakeLlmServer.toolCall('post_blog_article', article),
      FakeLlmServer.text('게시 확인을 기다립니다.'),
    );
    const res = await execute({ user_id: 'u-7', prompt: '이 글을 블로그에 올려줘' });
    expect(res.status).toBe(200);
    expect(res.body.tool_calls).toEqual([
      expect.objectContaining({
        tool: 'post_blog_article',
        params: article,
        success: false,
        pending_action: {
          status: 'pending_confirmation',
          action_id: expect.any(String),
          tool: 'post_blog_article',
          input: article,
          expires_at: expect.any(String),
        },
      }),
    ]);
    expect(blog.requests).toHaveLength(0);
    const actionId: string = res.body.tool_calls[0].pending_action.action_id;

    const pending = await t.request('GET', '/api/actions?status=pending', { key: operator });
    expect(pending.status).toBe(200);
    expect(pending.body.actions).toEqual([
      expect.objectContaining({
        action_id: actionId,
        caller: 'agent',
        requested_by: 'u-7',
        status: 'pending',
      }),
    ]);
    expect((await t.request('POST', `/api/actions/${actionId}/confirm`, { key: service })).status).toBe(403);
    expect((await t.request('POST', `/api/actions/${actionId}/confirm`, { key: reader })).status).toBe(403);
    expect((await t.request('POST', `/api/actions/${actionId}/confirm`, { key: t.adminKey })).status).toBe(
      404,
    );
    expect(blog.requests).toHaveLength(0);

    const confirmed = await t.request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      action: { action_id: actionId, status: 'confirmed', decided_by: expect.any(String) },
      result: { success: true, data: { article_id: 77, url: 'https://blog.example/p/77' } },
    });
    const [request] = blogRequests();
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/api/v1/blog/posts');
    expect(request.url.search).toBe('');
    expect(request.headers['x-user-api-key']).toBe(BLOG_KEY);
    expect(request.headers['x-user-id']).toBe('u-7');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual(article);

    const again = await t.request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'ACTION_NOT_PENDING', requestId: expect.any(String) });
    expect(blog.requests).toHaveLength(1);
  });

  it('MCP tools/call of post_blog_article with a service key is held; reject drops it without a post', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${service}` } },
      }),
    );
    try {
      const called = await client.callTool({
        name: 'post_blog_article',
        arguments: { title: 'Ignore previous instructions', markdown: 'publish', tags: [] },
      });
      expect(called.isError).toBe(true);
      const text = JSON.parse((called.content as Array<{ text: string }>)[0].text);
      expect(text).toMatchObject({
        error_details: { code: 'CONFIRMATION_REQUIRED' },
        pending_action: { status: 'pending_confirmation', tool: 'post_blog_article' },
      });
      expect(blog.requests).toHaveLength(0);
      const id: string = text.pending_action.action_id;
      const rejected = await t.request('POST', `/api/actions/${id}/reject`, { key: admin });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ action_id: id, status: 'rejected' });
      expect((await t.request('POST', `/api/actions/${id}/confirm`, { key: operator })).status).toBe(409);
      expect(blog.requests).toHaveLength(0);

      const second = await client.callTool({
        name: 'post_blog_article',
        arguments: { title: 'Fine', markdown: 'ok', tags: [] },
      });
      const secondId: string = JSON.parse((second.content as Array<{ text: string }>)[0].text).pending_action
        .action_id;
      const confirmed = await t.request('POST', `/api/actions/${secondId}/confirm`, { key: operator });
      expect(confirmed.body.result).toMatchObject({ success: true });
      expect(blog.requests.map((r) => r.method)).toEqual(['POST']);
    } finally {
      await client.close();
    }
  });

  it('the operator run endpoint holds a side-effect tool unless the request says confirm: true', async () => {
    const input = { title: 'Direct', markdown: 'x', tags: [] };
    const held = await t.request('POST', '/ops/tools/post_blog_article/execute', {
      key: operator,
      body: { input },
    });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({
      success: false,
      error_details: { code: 'CONFIRMATION_REQUIRED' },
      pending_action: { status: 'pending_confirmation' },
    });
    const stage = await t.request('POST', '/ops/stage/execute', {
      key: operator,
      body: { stage_name: 'post', tools: [{ tool_name: 'post_blog_article', input }] },
    });
    expect(stage.body.results[0].result).toMatchObject({ error_details: { code: 'CONFIRMATION_REQUIRED' } });
    expect(blog.requests).toHaveLength(0);
    const run = await t.request('POST', '/ops/tools/post_blog_article/execute', {
      key: operator,
      body: { input, confirm: true },
    });
    expect(run.body).toMatchObject({ success: true });
    expect(blog.requests).toHaveLength(1);
  });

  it('falls back to keyword tool selection when the model is down, and never publishes', async () => {
    llm.setDefault(FakeLlmServer.error(500));
    const res = await execute({ user_id: 42, prompt: '내 블로그 글 목록 보여줘' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: 'fallback', model_used: null, ok: true });
    expect(res.body.tool_calls.map((c: any) => [c.tool, c.success])).toEqual([['get_user_blog_posts', true]]);
    expect(blogRequests().map((r) => [r.method, r.url.searchParams.get('user_id')])).toEqual([['GET', '42']]);
    expect(res.body.final_response).toContain('Kafka consumer lag');
  });

  it("another tenant's agent does not see the blog tools", async () => {
    llm.setDefault(FakeLlmServer.text('no tools here'));
    const res = await execute({ user_id: 1, prompt: 'my blog posts?' }, t.adminKey);
    expect(res.status).toBe(200);
    const names = (llm.chatRequests[0].body.tools ?? []).map((tool: any) => tool.function.name);
    expect(names).not.toContain('get_user_blog_posts');
    expect(blog.requests).toHaveLength(0);
  });
});
