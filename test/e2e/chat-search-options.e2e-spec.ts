import {
  chatScript,
  chatStepOf,
  FakeLlmServer,
  lastLlmMessage,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

describe(`chat retries per component and "answer without tools" on a search error (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let brokenSearch: StandInServer;
  let reader: string;

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    brokenSearch = await startStandIn((_req, res) => sendJson(res, 503, { error: 'down' }));
    t = await startTestApp({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '0',
      LLM_RETRY_BASE_DELAY_MS: '0',
      WEB_SEARCH_URL: `${brokenSearch.url}/search`,
      CHAT_RETRY_BASE_DELAY_MS: '0',
      CHAT_SEARCH_RETRIES: '1',
      CHAT_ROUTER_RETRIES: '2',
      CHAT_ON_SEARCH_ERROR: 'answer_without_tools',
      DOCUMENTS_WORKER_CONCURRENCY: '0',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'chat-options' } });
    reader = (
      await t.request('POST', '/api/keys', {
        key: created.body.secret,
        body: { name: 'r', role: 'reader', user_id: 'r' },
      })
    ).body.secret;
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await brokenSearch?.close();
  });
  beforeEach(() => llm.reset());

  it('retries the router as CHAT_ROUTER_RETRIES says and the search as CHAT_SEARCH_RETRIES says', async () => {
    let routerCalls = 0;
    const script = chatScript({
      router: () => (++routerCalls < 3 ? FakeLlmServer.error(503) : FakeLlmServer.text('WEB_SEARCH')),
      agent: (request) =>
        lastLlmMessage(request).role === 'tool'
          ? FakeLlmServer.text('검색을 할 수 없었습니다. 일반적으로는 공식 릴리스 노트를 확인하세요.')
          : FakeLlmServer.toolCall('web_search', { query: 'postgres release' }),
    });
    llm.setDefault(script);
    const res = await t.request('POST', '/api/chat', {
      key: reader,
      body: { message: 'latest postgres news?' },
    });
    expect(res.status).toBe(200);
    expect(routerCalls).toBe(3);
    expect(res.body).toMatchObject({
      route: 'WEB_SEARCH',
      route_source: 'llm',
      answer_source: 'llm',
      answer: expect.stringContaining('검색을 할 수 없었습니다'),
      tool_calls: [{ tool: 'web_search', success: false, attempts: 2 }],
      warnings: expect.arrayContaining([expect.stringContaining('CHAT_ON_SEARCH_ERROR')]),
    });
    expect(brokenSearch.requests).toHaveLength(2);
    const toolMessages = llm.chatRequests
      .filter((r) => chatStepOf(r) === 'agent')
      .flatMap((r) => r.body.messages)
      .filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages[0].content).toContain('answer without search results');
  });

  it('without an agent answer, asks the model to answer without search results', async () => {
    llm.setDefault(
      chatScript({
        router: () => FakeLlmServer.text('WEB_SEARCH'),
        agent: (request) =>
          lastLlmMessage(request).role === 'tool'
            ? FakeLlmServer.error(500)
            : FakeLlmServer.toolCall('web_search', { query: 'postgres release' }),
        chitchat: (request) =>
          FakeLlmServer.text(
            request.body.messages[0].content.includes('search is unavailable')
              ? 'I could not search; in general, check the release notes.'
              : 'hello',
          ),
      }),
    );
    const res = await t.request('POST', '/api/chat', {
      key: reader,
      body: { message: 'latest postgres news?' },
    });
    expect(res.body).toMatchObject({
      answer: 'I could not search; in general, check the release notes.',
      answer_source: 'llm',
      citations: [],
    });
  });
});
