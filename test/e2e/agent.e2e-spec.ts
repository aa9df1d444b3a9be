import { BlogToolsPublisher } from '@app/planner';
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

  it('post_blog_article sends POST with the JSON article, the key and the user', async () => {
    const article = {
      title: 'K8s 1.31 upgrade notes',
      markdown: '# Notes\n- drained nodes',
      tags: ['k8s', 'ops'],
    };
    llm.enqueue(
      FakeLlmServer.toolCall('post_blog_article', article),
      FakeLlmServer.text('게시했습니다: https://blog.example/p/77'),
    );
    const res = await execute({ user_id: 'u-7', prompt: '이 글을 블로그에 올려줘' });
    expect(res.status).toBe(200);
    expect(res.body.tool_calls).toEqual([
      expect.objectContaining({
        tool: 'post_blog_article',
        params: article,
        success: true,
        result: { article_id: 77, url: 'https://blog.example/p/77' },
      }),
    ]);
    const [request] = blogRequests();
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/api/v1/blog/posts');
    expect(request.url.search).toBe('');
    expect(request.headers['x-user-api-key']).toBe(BLOG_KEY);
    expect(request.headers['x-user-id']).toBe('u-7');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual(article);
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
