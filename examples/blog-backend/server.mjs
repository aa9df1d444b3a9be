#!/usr/bin/env node
// An example blog backend for trying the blog tools (examples/tool-assets/blog) and the agent's
// confirm-and-resume flow without a blog of your own: the two endpoints the tools call, posts kept in
// memory, no dependencies.
//
//   GET  /api/v1/blog/posts?user_id=&limit=&offset=   -> 200 { posts: [{ id, title, markdown, tags, created_at, url }], total }
//   POST /api/v1/blog/posts  (X-User-Id; { title, markdown, tags })  -> 201 { article_id, url, title }
//   GET  /posts/:id                                    -> the post as Markdown
//
// With BLOG_API_KEY set, every API call must send it as X-User-Api-Key (as the blog tools do from the
// tenant's secret BLOG_API_KEY); 401 otherwise.
//
//   BLOG_API_KEY=blog-key-of-this-tenant node examples/blog-backend/server.mjs --port 4010 [--host 127.0.0.1]
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.BLOG_PORT ?? '4010' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const apiKey = process.env.BLOG_API_KEY ?? '';
const MAX_BODY_BYTES = 1024 * 1024;
/** @type {Array<{ id: number, user_id: string, title: string, markdown: string, tags: string[], created_at: string }>} */
const posts = [];

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        reject(new Error('body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const base = `http://${req.headers.host ?? `${values.host}:${values.port}`}`;
  const view = (post) => ({ ...post, url: `${base}/posts/${post.id}` });

  const page = /^\/posts\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && page) {
    const post = posts.find((p) => p.id === Number(page[1]));
    if (!post) return send(res, 404, { error: 'no such post' });
    res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
    return res.end(`# ${post.title}\n\n${post.markdown}\n`);
  }
  if (url.pathname !== '/api/v1/blog/posts') return send(res, 404, { error: 'not found' });
  if (apiKey && req.headers['x-user-api-key'] !== apiKey)
    return send(res, 401, { error: 'bad X-User-Api-Key' });

  if (req.method === 'GET') {
    const userId = url.searchParams.get('user_id');
    if (!userId) return send(res, 400, { error: 'user_id is required' });
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 10) || 10, 1), 50);
    const offset = Math.max(Number(url.searchParams.get('offset') ?? 0) || 0, 0);
    const mine = posts.filter((p) => p.user_id === userId).reverse();
    return send(res, 200, { posts: mine.slice(offset, offset + limit).map(view), total: mine.length });
  }
  if (req.method === 'POST') {
    let body;
    try {
      body = await readJson(req);
    } catch (error) {
      return send(res, 400, { error: error.message });
    }
    const userId = String(req.headers['x-user-id'] ?? '');
    if (!userId) return send(res, 400, { error: 'X-User-Id is required' });
    if (typeof body.title !== 'string' || !body.title.trim())
      return send(res, 400, { error: 'title is required' });
    if (typeof body.markdown !== 'string' || !body.markdown.trim())
      return send(res, 400, { error: 'markdown is required' });
    const tags = Array.isArray(body.tags) ? body.tags.filter((t) => typeof t === 'string') : [];
    const post = {
      id: posts.length + 1,
      user_id: userId,
      title: body.title.trim(),
      markdown: body.markdown,
      tags,
      created_at: new Date().toISOString(),
    };
    posts.push(post);
    const { url: postUrl } = view(post);
    return send(res, 201, { article_id: post.id, url: postUrl, title: post.title });
  }
  return send(res, 405, { error: 'GET or POST' });
});

server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address();
  console.log(`example blog backend listening on http://${address}:${port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
