import { randomUUID } from 'node:crypto';
import type { HttpToolConfig, ToolAssetSpec } from '@app/asset-registry';
import { HttpToolFactory, ToolContext, ToolRegistry, ToolsModule } from '@app/tools';
import { sleep, startTestContext, TestContext, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../../support/http-stand-in';

const BLOG_KEY = 'blog-key-0123456789';
const TENANT = randomUUID();

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    tenantId: TENANT,
    userId: 'user-42',
    requestId: randomUUID(),
    traceId: randomUUID(),
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
    // These tests are about what an http tool sends, so they run side effects as a confirmed operator.
    caller: 'operator',
    confirmed: true,
    ...overrides,
  };
}

function spec(
  name: string,
  config: Partial<HttpToolConfig> & { url: string },
  extra: Partial<ToolAssetSpec> = {},
): ToolAssetSpec {
  return {
    name,
    description: `${name} (test)`,
    kind: 'http',
    tool_config: { method: 'GET', ...config },
    tool_input_schema: { type: 'object', properties: {}, additionalProperties: true },
    tool_output_schema: null,
    ...extra,
  };
}

describe(`http tools (${testBackend()})`, () => {
  let ctx: TestContext;
  let blog: StandInServer;
  let other: StandInServer;
  let canary: StandInServer;
  let registry: ToolRegistry;
  let factory: HttpToolFactory;

  const run = async (toolSpec: ToolAssetSpec, input: Record<string, unknown> = {}, ctxOverrides = {}) => {
    registry.setDynamicTool(TENANT, factory.create(toolSpec));
    return registry.execute(context(ctxOverrides), toolSpec.name, input);
  };

  beforeAll(async () => {
    canary = await startStandIn((_req, res) => sendJson(res, 200, { reached: true }));
    other = await startStandIn((req, res) => sendJson(res, 200, { headers: req.headers }));
    blog = await startStandIn(async (req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (url.pathname === '/api/v1/blog/posts' && req.method === 'GET') {
        if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
        const limit = Number(url.searchParams.get('limit') ?? 10);
        return sendJson(res, 200, {
          posts: [{ id: 'p1', author: url.searchParams.get('user_id'), title: 'Kafka lag runbook' }].slice(
            0,
            limit,
          ),
          total: 1,
          limit,
          offset: Number(url.searchParams.get('offset') ?? 0),
        });
      }
      if (url.pathname === '/api/v1/blog/posts' && req.method === 'POST') {
        const payload = JSON.parse(body) as Record<string, unknown>;
        return sendJson(res, 201, {
          article: { article_id: 'a-1', url: 'https://blog.example/a-1', ...payload },
          echoed_key: req.headers['x-user-api-key'],
        });
      }
      if (url.pathname === '/redirect') {
        res.statusCode = Number(url.searchParams.get('status') ?? 302);
        res.setHeader('location', url.searchParams.get('to') ?? '/');
        return void res.end();
      }
      const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (chain) {
        const n = Number(chain[1]);
        if (n === 0) return sendJson(res, 200, { done: true });
        res.statusCode = 302;
        res.setHeader('location', `/chain/${n - 1}`);
        return void res.end();
      }
      if (url.pathname === '/big') {
        const bytes = Number(url.searchParams.get('bytes'));
        res.setHeader('content-type', 'text/plain');
        if (url.searchParams.get('declared') === '1') res.setHeader('content-length', String(bytes));
        for (let sent = 0; sent < bytes; sent += 64 * 1024) {
          if (!res.write('x'.repeat(Math.min(64 * 1024, bytes - sent)))) await sleep(1);
          if (res.destroyed) return;
        }
        return void res.end();
      }
      if (url.pathname === '/slow') {
        const timer = setTimeout(
          () => sendJson(res, 200, { slow: true }),
          Number(url.searchParams.get('ms')),
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (url.pathname === '/status') {
        return sendJson(res, Number(url.searchParams.get('code')), {
          failed: true,
          key: req.headers['x-user-api-key'] ?? null,
        });
      }
      if (url.pathname === '/text') {
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        return void res.end('plain words');
      }
      if (url.pathname === '/not-json') {
        res.setHeader('content-type', 'application/json');
        return void res.end('{oops');
      }
      sendJson(res, 404, { error: 'no route' });
    });
    ctx = await startTestContext([ToolsModule], {
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blog.port},127.0.0.1:${other.port}`,
      OPS_SECRET_BLOG: BLOG_KEY,
      SECRET_ENV_GRANTS: `${TENANT}:OPS_SECRET_BLOG`,
    });
    registry = ctx.get(ToolRegistry);
    factory = ctx.get(HttpToolFactory);
  });

  afterAll(async () => {
    await ctx?.close();
    await Promise.all([blog, other, canary].map((s) => s?.close()));
  });

  describe('the blog tools as http tool assets', () => {
    const getPosts = () =>
      spec(
        'get_user_blog_posts',
        {
          url: `${blog.url}/api/v1/blog/posts?user_id={{context.user_id}}`,
          query: { limit: '{{input.limit}}', offset: '{{input.offset}}' },
          headers: { 'X-User-Api-Key': '{{secret}}' },
          secret_ref: 'env:OPS_SECRET_BLOG',
          response_mapping: { posts: 'posts', total: 'total', first_title: 'posts.0.title' },
        },
        {
          tool_input_schema: {
            type: 'object',
            properties: { limit: { type: 'integer', default: 10 }, offset: { type: 'integer' } },
            additionalProperties: false,
          },
          tool_output_schema: {
            type: 'object',
            properties: { posts: { type: 'array' }, total: { type: 'integer' } },
            required: ['posts', 'total'],
          },
        },
      );

    it('reads the caller’s posts: user from the context, query from input, key from the secret', async () => {
      const result = await run(getPosts(), { limit: 5 });
      expect(result).toMatchObject({
        success: true,
        data: { total: 1, first_title: 'Kafka lag runbook', posts: [{ author: 'user-42' }] },
        metadata: { http_status: 200, redirects: 0 },
      });
      const sent = blog.requests.at(-1)!;
      expect(sent.path).toBe('/api/v1/blog/posts?user_id=user-42&limit=5');
      expect(sent.headers['x-user-api-key']).toBe(BLOG_KEY);
      expect(JSON.stringify(result)).not.toContain(BLOG_KEY);
    });

    it('posts an article with typed body values and never returns the secret even when echoed', async () => {
      const result = await run(
        spec(
          'post_blog_article',
          {
            method: 'POST',
            url: `${blog.url}/api/v1/blog/posts`,
            headers: { 'X-User-Api-Key': '{{secret}}' },
            secret_ref: 'env:OPS_SECRET_BLOG',
            body: {
              title: '{{input.title}}',
              markdown: '{{input.markdown}}',
              tags: '{{input.tags}}',
              by: 'u:{{context.user_id}}',
            },
          },
          { has_side_effects: true },
        ),
        { title: 'Incident 42 review', markdown: '# Review', tags: ['kafka', 'postmortem'] },
      );
      expect(result.success).toBe(true);
      expect(JSON.parse(blog.requests.at(-1)!.body)).toEqual({
        title: 'Incident 42 review',
        markdown: '# Review',
        tags: ['kafka', 'postmortem'],
        by: 'u:user-42',
      });
      expect(result.data).toMatchObject({
        article: { article_id: 'a-1', tags: ['kafka', 'postmortem'] },
        echoed_key: '[REDACTED]',
      });
      expect(JSON.stringify(result)).not.toContain(BLOG_KEY);
    });

    it('fails clearly when the secret is not configured, without naming its value', async () => {
      const result = await run(
        spec('needs_secret', {
          url: `${blog.url}/api/v1/blog/posts`,
          headers: { 'X-User-Api-Key': '{{secret}}' },
          secret_ref: 'env:OPS_SECRET_NOT_SET',
        }),
      );
      expect(result).toMatchObject({
        success: false,
        error_details: { code: 'SECRET_MISSING', secret_ref: 'env:OPS_SECRET_NOT_SET' },
      });
    });

    it('reports a non-2xx answer with its status', async () => {
      const unauthorized = await run(spec('no_key', { url: `${blog.url}/api/v1/blog/posts` }));
      expect(unauthorized).toMatchObject({
        success: false,
        error_details: { code: 'HTTP_STATUS', status: 401 },
      });
      const unavailable = await run(spec('five_oh_three', { url: `${blog.url}/status?code=503` }));
      expect(unavailable.error_details).toMatchObject({ code: 'HTTP_STATUS', status: 503 });
      const echoing = await run(
        spec('echo_key_on_error', {
          url: `${blog.url}/status?code=500`,
          headers: { 'X-User-Api-Key': '{{secret}}' },
          secret_ref: 'env:OPS_SECRET_BLOG',
        }),
      );
      expect(echoing.error_details).toMatchObject({ code: 'HTTP_STATUS', status: 500 });
      expect(echoing.error_details?.body).toContain('[REDACTED]');
      expect(JSON.stringify(echoing)).not.toContain(BLOG_KEY);
    });

    it('returns text bodies as text and refuses invalid JSON', async () => {
      expect((await run(spec('text', { url: `${blog.url}/text` }))).data).toBe('plain words');
      expect((await run(spec('bad_json', { url: `${blog.url}/not-json` }))).error_details).toMatchObject({
        code: 'INVALID_RESPONSE',
      });
    });

    it('refuses a config that lets input choose the host, at build time', () => {
      expect(() => factory.create(spec('steer', { url: 'http://{{input.host}}/x' }))).toThrow(
        expect.objectContaining({ code: 'TOOL_CONFIG_INVALID' }),
      );
    });
  });

  describe('SSRF guard', () => {
    const targets = (port: number) => [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://127.1:${port}/`,
    ];

    it('refuses loopback, private, link-local and metadata addresses in every spelling, before connecting', async () => {
      for (const [index, url] of targets(canary.port).entries()) {
        const result = await run(spec(`direct_${index}`, { url }));
        expect({ url, ...result.error_details }).toMatchObject({ url, code: 'ADDRESS_BLOCKED' });
      }
      expect(canary.connections()).toBe(0);
    });

    it('re-checks every redirect hop from an allowlisted server and refuses each internal target', async () => {
      for (const [index, to] of targets(canary.port).entries()) {
        const result = await run(spec(`redirect_${index}`, { url: `${blog.url}/redirect?to={{input.to}}` }), {
          to,
        });
        expect({ to, ...result.error_details }).toMatchObject({ to, code: 'ADDRESS_BLOCKED' });
      }
      const viaStatuses = await Promise.all(
        [301, 303, 307, 308].map((status, index) =>
          run(
            spec(`redirect_status_${index}`, {
              url: `${blog.url}/redirect?status=${status}&to={{input.to}}`,
            }),
            {
              to: 'http://169.254.169.254/',
            },
          ),
        ),
      );
      for (const result of viaStatuses)
        expect(result.error_details).toMatchObject({ code: 'ADDRESS_BLOCKED' });
      expect(canary.connections()).toBe(0);
    });

    it('refuses a redirect to another scheme', async () => {
      const result = await run(spec('to_file', { url: `${blog.url}/redirect?to=file:///etc/passwd` }));
      expect(result.error_details).toMatchObject({ code: 'URL_NOT_ALLOWED' });
    });

    it('follows up to 5 redirects and stops at the 6th', async () => {
      expect((await run(spec('chain5', { url: `${blog.url}/chain/5` }))).data).toEqual({ done: true });
      expect((await run(spec('chain6', { url: `${blog.url}/chain/6` }))).error_details).toMatchObject({
        code: 'TOO_MANY_REDIRECTS',
      });
    });

    it('drops credentials when a redirect leaves the origin', async () => {
      const result = await run(
        spec('cross_origin', {
          url: `${blog.url}/redirect?to={{input.to}}`,
          headers: { 'X-User-Api-Key': '{{secret}}', 'X-Trace': 'kept' },
          secret_ref: 'env:OPS_SECRET_BLOG',
        }),
        { to: `${other.url}/headers` },
      );
      const headers = (result.data as { headers: Record<string, string> }).headers;
      expect(headers['x-trace']).toBe('kept');
      expect(headers['x-user-api-key']).toBeUndefined();
    });
  });

  describe('caps', () => {
    it('stops reading at max_response_bytes, with or without a declared length', async () => {
      for (const declared of ['0', '1']) {
        const result = await run(
          spec(`big_${declared}`, {
            url: `${blog.url}/big?bytes=2000000&declared=${declared}`,
            max_response_bytes: 100_000,
          }),
        );
        expect(result.error_details).toMatchObject({
          code: 'RESPONSE_TOO_LARGE',
          max_response_bytes: 100_000,
        });
      }
      expect(
        (await run(spec('small', { url: `${blog.url}/big?bytes=1000`, max_response_bytes: 100_000 })))
          .success,
      ).toBe(true);
    });

    it('times out a slow endpoint at timeout_ms', async () => {
      const result = await run(spec('slow', { url: `${blog.url}/slow?ms=3000`, timeout_ms: 200 }));
      expect(result.error_details).toMatchObject({ code: 'TIMEOUT' });
    });

    it('stops at the caller’s deadline and on cancellation', async () => {
      const late = await run(
        spec('deadline', { url: `${blog.url}/slow?ms=3000` }),
        {},
        { deadline: Date.now() + 200 },
      );
      expect(late.error_details).toMatchObject({ code: 'TIMEOUT' });

      const controller = new AbortController();
      const pending = run(
        spec('cancel', { url: `${blog.url}/slow?ms=3000` }),
        {},
        { signal: controller.signal },
      );
      setTimeout(() => controller.abort(), 100);
      expect((await pending).error_details).toMatchObject({ code: 'CANCELLED' });
    });
  });
});
