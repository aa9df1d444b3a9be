import { BlogToolsPublisher } from '@app/assistant';
import { ToolRegistry } from '@app/tools';
import { sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const BLOG_KEY = 'blog-service-key-0123456789';
const ROUTE = '/internal/v1/llm/execute';

/**
 * Seed 000/001's own agent prompts without a language model: the agent's fallback is the same planner over
 * the caller's tools, deciding from what was published (the blog tools as the README's recipe publishes
 * them, with their planning hints; the code tools' own hints), in Korean and English.
 */
const PROMPTS: Array<{ lang: string; prompt: string; tools: string[]; context?: Record<string, unknown> }> = [
  {
    lang: 'ko',
    prompt: '내 블로그 글 스타일로 쿠버네티스 입문 글 초안 써줘',
    tools: ['get_user_blog_posts'],
  },
  {
    lang: 'ko',
    prompt: '이 글을 블로그에 올려줘',
    tools: ['post_blog_article'],
    context: { title: '쿠버네티스 입문', markdown: '# 쿠버네티스 입문\n\n파드부터 시작합니다.' },
  },
  { lang: 'ko', prompt: '사용자 인증 로직 찾아줘', tools: ['search_vector_db'] },
  { lang: 'ko', prompt: 'authenticate 함수가 어떤 함수를 호출하는지 알려줘', tools: ['search_graph_db'] },
  {
    lang: 'ko',
    prompt: '사용자 인증 관련 코드를 찾아서 블로그 글 작성해줘',
    tools: ['search_vector_db', 'post_blog_article'],
  },
  { lang: 'ko', prompt: '안녕, 오늘 기분 어때?', tools: [] },
  { lang: 'en', prompt: "draft a post about Kubernetes in my blog's style", tools: ['get_user_blog_posts'] },
  {
    lang: 'en',
    prompt: 'publish this on my blog',
    tools: ['post_blog_article'],
    context: { title: 'Kubernetes 101', markdown: '# Kubernetes 101\n\nStart with pods.' },
  },
  { lang: 'en', prompt: 'find the user authentication logic', tools: ['search_vector_db'] },
  { lang: 'en', prompt: 'which functions does authenticate call?', tools: ['search_graph_db'] },
  {
    lang: 'en',
    prompt: 'find the authentication code and write a blog post about it',
    tools: ['search_vector_db', 'post_blog_article'],
  },
  { lang: 'en', prompt: 'hi there, how are you today?', tools: [] },
];

describe(`the seeds' agent prompts without a language model (${testBackend()})`, () => {
  let t: TestApp;
  let blog: StandInServer;
  let service: string;

  const execute = (body: Record<string, unknown>) => t.request('POST', ROUTE, { key: service, body });

  beforeAll(async () => {
    blog = await startStandIn((req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
      if (req.method === 'GET') return sendJson(res, 200, { posts: [{ id: 1, title: 'Hello' }], total: 1 });
      return sendJson(res, 201, { article_id: 77 });
    });
    t = await startTestApp({
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blog.port}`,
      OPS_SECRET_BLOG_API_KEY: BLOG_KEY,
      SECRET_ENV_GRANTS: 'seedblog:OPS_SECRET_BLOG_API_KEY',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'seedblog' } });
    const tenantId = created.body.tenant.id as string;
    const admin = created.body.secret as string;
    service = (await t.request('POST', '/api/keys', { key: admin, body: { name: 'svc', role: 'service' } }))
      .body.secret as string;
    await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 200 && !registry.has(tenantId, 'post_blog_article'); i++) await sleep(20);
    // The planner trains on the published tools in the background: no request waits for it, and a plan
    // made meanwhile says so. Wait until a plan is made by the trained planner.
    for (let i = 0; i < 120; i++) {
      const probe = await execute({ user_id: 7, prompt: '안녕' });
      if (!(probe.body.warnings as string[]).some((w) => w.startsWith('planner_training'))) break;
      await sleep(500);
    }
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await blog?.close();
  });

  it.each(PROMPTS)('$lang: "$prompt" -> $tools', async ({ prompt, tools, context }) => {
    const before = blog.requests.length;
    const res = await execute({ user_id: 7, prompt, ...(context ? { context } : {}) });
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('fallback');
    const called = [...new Set((res.body.tool_calls as Array<{ tool: string }>).map((c) => c.tool))].sort();
    expect(called).toEqual([...tools].sort());
    const posts = blog.requests.slice(before).filter((r) => r.method === 'POST');
    // Publishing has side effects: the call waits for a person's confirmation (or for its inputs), never runs.
    expect(posts).toHaveLength(0);
    const post = (
      res.body.tool_calls as Array<{ tool: string; success: boolean; error: string | null }>
    ).find((c) => c.tool === 'post_blog_article');
    if (post) {
      expect(post.success).toBe(false);
      // With its inputs in the context the call is held for a person's confirmation; without them it waits
      // for the inputs first.
      expect(JSON.stringify(post)).toMatch(
        context ? /CONFIRMATION_REQUIRED|confirm/ : /NEEDS_INPUT|CONFIRMATION_REQUIRED|confirm/,
      );
    }
  });
});
