import { DocumentIngestionService } from '@app/documents';
import { chatScript, FakeLlmServer, lastLlmMessage, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

describe(`RAG chat over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let searxng: StandInServer;
  let alice: string;
  let bob: string;
  let service: string;
  let otherTenant: string;

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    searxng = await startStandIn((req, res) => {
      const url = new URL(req.url ?? '/', 'http://searxng');
      sendJson(res, 200, {
        query: url.searchParams.get('q'),
        results: [
          {
            url: 'https://www.postgresql.org/about/news/',
            title: 'PostgreSQL News',
            content: 'PostgreSQL 18 released.',
          },
          { url: 'javascript:alert(1)', title: 'bad', content: 'dropped' },
        ],
      });
    });
    t = await startTestApp({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      WEB_SEARCH_URL: `${searxng.url}/search`,
      DOCUMENTS_WORKER_CONCURRENCY: '0',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'chatco' } });
    const admin = created.body.secret as string;
    const key = async (role: string, user: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: user, role, user_id: user } })).body
        .secret as string;
    alice = await key('reader', 'alice');
    bob = await key('reader', 'bob');
    service = await key('service', 'svc');
    otherTenant = t.adminKey;
    const ingestion = t.app.get(DocumentIngestionService);
    await ingestion.create(created.body.tenant.id, {
      filename: 'vacation.md',
      content: '# 휴가 규정\n\n연차 휴가는 HR 포털에서 신청하며, 팀장의 승인이 필요합니다.',
    });
    await ingestion.processQueue();
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await searxng?.close();
  });
  beforeEach(() => {
    llm.reset();
    llm.setDefault(chatScript());
    searxng.requests.length = 0;
  });

  it('lets a reader ask, continue the conversation and read it back; other users get 404', async () => {
    const first = await t.request('POST', '/api/chat', {
      key: alice,
      body: { message: '휴가 신청 방법 알려줘' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      route: 'INTERNAL_SEARCH',
      grade: 'PASS',
      rewritten: false,
      answer: '연차 휴가는 HR 포털에서 신청합니다 [1].',
      documents: [{ document_name: 'vacation.md' }],
      citations: [{ index: 1, kind: 'document', document_name: 'vacation.md', chunk_index: 0, page: null }],
    });
    expect(first.body.llm_calls.map((c: any) => c.step)).toEqual(['router', 'agent', 'agent', 'grader']);
    const id = first.body.conversation_id as string;

    llm.setDefault(chatScript({ router: () => FakeLlmServer.text('CHITCHAT') }));
    const second = await t.request('POST', '/api/chat', {
      key: alice,
      body: { message: '고마워', conversation_id: id },
    });
    expect(second.status).toBe(200);
    expect(second.body.conversation_id).toBe(id);
    const lastRequest = llm.chatRequests[llm.chatRequests.length - 1];
    expect(second.body.route).toBe('CHITCHAT');
    expect(lastRequest.body.messages.map((m: any) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);

    const read = await t.request('GET', `/api/chat/conversations/${id}`, { key: alice });
    expect(read.status).toBe(200);
    expect(read.body.messages.map((m: any) => [m.position, m.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [2, 'user'],
      [3, 'assistant'],
    ]);
    expect(read.body.messages[1]).toMatchObject({
      route: 'INTERNAL_SEARCH',
      grade: 'PASS',
      citations: [{ index: 1 }],
    });
    const list = await t.request('GET', '/api/chat/conversations', { key: alice });
    expect(list.body).toMatchObject({ total: 1, items: [{ id, title: '휴가 신청 방법 알려줘' }] });

    for (const key of [bob, otherTenant]) {
      expect((await t.request('GET', `/api/chat/conversations/${id}`, { key })).status).toBe(404);
      const post = await t.request('POST', '/api/chat', {
        key,
        body: { message: 'hi', conversation_id: id },
      });
      expect(post.status).toBe(404);
      expect(post.body).toMatchObject({ error: 'CONVERSATION_NOT_FOUND', requestId: expect.any(String) });
      expect((await t.request('DELETE', `/api/chat/conversations/${id}`, { key })).status).toBe(404);
    }
    expect((await t.request('GET', '/api/chat/conversations', { key: bob })).body.total).toBe(0);

    expect((await t.request('DELETE', `/api/chat/conversations/${id}`, { key: alice })).status).toBe(204);
    expect((await t.request('GET', `/api/chat/conversations/${id}`, { key: alice })).status).toBe(404);
  });

  it('WEB_SEARCH: searches the configured SearxNG endpoint and cites web pages', async () => {
    llm.setDefault(
      chatScript({
        router: () => FakeLlmServer.text('WEB_SEARCH'),
        agent: (request) =>
          lastLlmMessage(request).role === 'tool'
            ? FakeLlmServer.text('PostgreSQL 18 is out [1].')
            : FakeLlmServer.toolCall('web_search', { query: 'PostgreSQL 18 release' }),
      }),
    );
    const res = await t.request('POST', '/api/chat', {
      key: service,
      body: { message: 'latest PostgreSQL news?' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      route: 'WEB_SEARCH',
      answer: 'PostgreSQL 18 is out [1].',
      citations: [
        { index: 1, kind: 'web', url: 'https://www.postgresql.org/about/news/', title: 'PostgreSQL News' },
      ],
      documents: [],
      tool_calls: [{ tool: 'web_search', query: 'PostgreSQL 18 release', success: true, result_count: 1 }],
    });
    const [request] = searxng.requests;
    const url = new URL(request.path, searxng.url);
    expect(request.method).toBe('GET');
    expect(url.pathname).toBe('/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'PostgreSQL 18 release', format: 'json' });
    expect(llm.chatRequests[0].body.messages[0].content).toContain('WEB_SEARCH');
  });

  it('rejects bad input with field-named 400s', async () => {
    for (const [body, field] of [
      [{}, 'message'],
      [{ message: '   ' }, 'message'],
      [{ message: 'x', conversation_id: 'not-a-uuid' }, 'conversation_id'],
      [{ message: 'x', extra: 1 }, 'extra'],
    ] as const) {
      const res = await t.request('POST', '/api/chat', { key: alice, body });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect((await t.request('GET', '/api/chat/conversations?limit=0', { key: alice })).status).toBe(400);
    expect((await t.request('POST', '/api/chat', { key: null, body: { message: 'x' } })).status).toBe(401);
    expect(llm.chatRequests).toHaveLength(0);
  });
});
