import { createTwoFilesPatch } from 'diff';
import { DataSource } from 'typeorm';
import { runAsSystem } from '@app/platform';
import { FakeLlmServer, sleep, startTestApp, TestApp, testBackend } from '@test/support';

const AUTH = `import {verifyToken} from './token.js';

/** The authentication logic: checks a bearer token. */
export function authenticate(header: string): boolean {
  return verifyToken(header.replace('Bearer ', ''));
}
`;
const TOKEN = `export function verifyToken(token: string): boolean {
  return token.length > 10;
}
`;

describe(`code intelligence over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let service: string;
  let reader: string;
  let otherTenant: string;

  const apply = (body: Record<string, unknown>, query = '', key = service) =>
    t.request('POST', `/internal/v1/diffs/apply${query}`, { key, body });

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    t = await startTestApp({ LLM_BASE_URL: llm.url, LLM_MODEL: 'fake-model', LLM_MAX_RETRIES: '1' });
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { body: { name: role, role } })).body.secret as string;
    [service, reader] = [await key('service'), await key('reader')];
    otherTenant = (await t.request('POST', '/api/tenants', { body: { slug: 'code-other' } })).body.secret;
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('needs a service or admin key, and names bad fields', async () => {
    const body = { user_id: 7, files: [{ path: 'src/token.ts', status: 'added', after: TOKEN }] };
    expect((await apply(body, '', reader)).status).toBe(403);
    expect((await t.request('POST', '/internal/v1/diffs/apply', { key: null, body })).status).toBe(401);
    for (const [bad, field] of [
      [{ files: [] }, 'user_id'],
      [{ user_id: 7, files: [{ path: 'a.ts', status: 'changed' }] }, 'status'],
      [{ user_id: 7 }, 'files'],
      [{ user_id: 7, files: [{ path: '../etc/passwd', status: 'added', after: 'x' }] }, 'path'],
      [{ user_id: 7, files: [{ path: 'a.ts', status: 'added' }] }, 'after'],
    ] as const) {
      const res = await apply(bad);
      expect([res.status, JSON.stringify(res.body)]).toEqual([400, expect.stringContaining(field)]);
      expect(res.body).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
  });

  it('202 { diff_id, status } then the DiffApplyResult; ?wait=true answers with it', async () => {
    const queued = await apply({
      user_id: 7,
      commit: 'abc',
      files: [{ path: 'src/token.ts', status: 'added', after: TOKEN }],
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ diff_id: expect.any(String), status: 'queued' });
    const result = await t.request('GET', `/internal/v1/diffs/${queued.body.diff_id}?wait=true`, {
      key: service,
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ status: 'done', files_processed: 1, failed_files: [] });

    const waited = await apply(
      { user_id: 7, files: [{ path: 'src/auth.ts', status: 'added', after: AUTH }] },
      '?wait=true',
    );
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ status: 'done', files_processed: 1, graph_nodes_updated: 2 });
  });

  it('409 names the file and hunk; 413 names the limit', async () => {
    const bad = createTwoFilesPatch('a/src/auth.ts', 'b/src/auth.ts', 'not\nthe\ntext\n', 'other\n');
    const conflict = await apply({ user_id: 7, unified: bad });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      error: 'HUNK_DOES_NOT_APPLY',
      details: { file: 'src/auth.ts', hunk: 1 },
    });
    const big = await apply({
      user_id: 7,
      files: [{ path: 'big.ts', status: 'added', after: 'x'.repeat(1024 * 1024 + 10) }],
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({
      error: 'DIFF_TOO_LARGE',
      details: { limit: { key: 'CODE_MAX_FILE_BYTES' } },
    });
  });

  it('serves repositories, symbols with callers and callees, and files to readers of the tenant only', async () => {
    const repos = await t.request('GET', '/api/code/repositories?user_id=7', { key: reader });
    expect(repos.status).toBe(200);
    expect(repos.body).toEqual([expect.objectContaining({ user_id: '7', name: 'default', files: 2 })]);
    const id = repos.body[0].id;
    const symbols = await t.request('GET', `/api/code/repositories/${id}/symbols?q=authenticate`, {
      key: reader,
    });
    expect(symbols.body[0]).toMatchObject({ name: 'authenticate', path: 'src/auth.ts', start_line: 4 });
    const detail = await t.request('GET', `/api/code/symbols/${symbols.body[0].id}`, { key: reader });
    expect(detail.body.callees.map((c: { name: string }) => c.name)).toEqual(['verifyToken', 'replace']);
    const file = await t.request('GET', `/api/code/repositories/${id}/files?path=src/token.ts`, {
      key: reader,
    });
    expect(file.body).toEqual([
      expect.objectContaining({ path: 'src/token.ts', text: TOKEN, language: 'typescript' }),
    ]);
    expect((await t.request('GET', `/api/code/repositories/${id}/files`, { key: otherTenant })).status).toBe(
      404,
    );
    expect((await t.request('GET', '/api/code/repositories', { key: otherTenant })).body).toEqual([]);
    expect(
      (await t.request('GET', `/api/code/symbols/${symbols.body[0].id}`, { key: otherTenant })).status,
    ).toBe(404);
  });

  it('a code document is read-only through /api/documents: only diff application changes it (409)', async () => {
    const [row] = await runAsSystem('test: find a code document', () =>
      t.app
        .get(DataSource)
        .query(
          `SELECT id FROM documents WHERE doc_metadata @> '{"source": "code", "user_id": "7"}' AND deleted_at IS NULL LIMIT 1`,
        ),
    );
    expect(row?.id).toEqual(expect.any(String));
    const path = `/api/documents/${row.id}`;
    const body = { filename: 'x.md', content: 'replaced' };
    for (const [method, route, payload] of [
      ['PUT', path, body],
      ['DELETE', path, undefined],
      ['POST', `${path}/retry`, undefined],
      ['POST', `${path}/restore`, undefined],
    ] as const) {
      const res = await t.request(method, route, { body: payload });
      expect([method, route, res.status, res.body.error]).toEqual([
        method,
        route,
        409,
        'DOCUMENT_MANAGED_BY_CODE',
      ]);
    }
    // Still there, unchanged, and still served to the code tools.
    const read = await t.request('GET', path);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'done', deleted_at: null });
  });

  it('the agent gets search_graph_db and search_vector_db results for its user through /internal/v1/llm/execute', async () => {
    llm.enqueue(
      FakeLlmServer.toolCall('search_graph_db', { query: 'authenticate', limit: 5, user_id: 999 }),
      FakeLlmServer.text('authenticate calls verifyToken.'),
    );
    const graph = await t.request('POST', '/internal/v1/llm/execute', {
      key: service,
      body: { user_id: 7, prompt: 'authenticate 함수가 어떤 함수를 호출하는지 알려줘' },
    });
    expect(graph.status).toBe(200);
    expect(graph.body.tool_calls[0]).toMatchObject({ tool: 'search_graph_db', success: true });
    expect(graph.body.tool_calls[0].result.results[0]).toMatchObject({
      entity_name: 'authenticate',
      calls: ['verifyToken (src/token.ts:1)', 'replace'],
    });

    let hits: Array<{ symbol: string }> = [];
    for (let i = 0; i < 100 && !hits.some((h) => h.symbol === 'authenticate'); i++) {
      llm.enqueue(
        FakeLlmServer.toolCall('search_vector_db', { query: 'authentication logic', top_k: 5 }),
        FakeLlmServer.text('ok'),
      );
      const vector = await t.request('POST', '/internal/v1/llm/execute', {
        key: service,
        body: { user_id: 7, prompt: '사용자 인증 로직 찾아줘' },
      });
      hits = vector.body.tool_calls[0]?.result?.results ?? [];
      if (!hits.length) await sleep(100);
    }
    expect(hits[0]).toMatchObject({ symbol: 'authenticate', file: 'src/auth.ts' });

    llm.enqueue(
      FakeLlmServer.toolCall('search_graph_db', { query: 'authenticate' }),
      FakeLlmServer.text('none'),
    );
    const stranger = await t.request('POST', '/internal/v1/llm/execute', {
      key: service,
      body: { user_id: 8, prompt: 'authenticate 함수가 어떤 함수를 호출하는지 알려줘' },
    });
    expect(stranger.body.tool_calls[0].result).toMatchObject({ count: 0 });
  });

  it('without a working model, the fallback picks the code tools for the seed prompts and finds the symbols', async () => {
    llm.setDefault(FakeLlmServer.error(500));
    const graph = await t.request('POST', '/internal/v1/llm/execute', {
      key: service,
      body: { user_id: 7, prompt: 'authenticate 함수가 어떤 함수를 호출하는지 알려줘' },
    });
    expect(graph.body).toMatchObject({ mode: 'fallback', ok: true });
    const graphCall = graph.body.tool_calls.find((c: { tool: string }) => c.tool === 'search_graph_db');
    expect(graphCall.result.results[0]).toMatchObject({
      entity_name: 'authenticate',
      calls: ['verifyToken (src/token.ts:1)', 'replace'],
    });
    const english = await t.request('POST', '/internal/v1/llm/execute', {
      key: service,
      body: { user_id: 7, prompt: 'find the authentication logic' },
    });
    const vectorCall = english.body.tool_calls.find((c: { tool: string }) => c.tool === 'search_vector_db');
    expect(vectorCall.result.results[0]).toMatchObject({ symbol: 'authenticate', file: 'src/auth.ts' });
    llm.setDefault(null);
  });
});
