import { DocumentIngestionService } from '@app/documents';
import { AssistantModule, ChatService, DocumentRetriever } from '@app/assistant';
import { AuthService } from '@app/platform';
import {
  chatScript as script,
  chatStepOf as stepOf,
  FakeLlmServer,
  lastLlmMessage as lastMessage,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

const DOCS = {
  'vacation.md':
    '# 휴가 규정\n\n연차 휴가는 HR 포털에서 신청하며, 팀장의 승인이 필요합니다. 신청은 사용 3일 전까지 합니다.',
  'deploy.md': '# 배포 절차\n\n배포는 화요일과 목요일에만 진행하며, 롤백 계획을 미리 작성합니다.',
  'backup.md':
    '# Backups\n\nNightly PostgreSQL backups are written to object storage and verified every Sunday.',
};

describe(`agentic RAG chat against an OpenAI-compatible server (${testBackend()})`, () => {
  let llm: FakeLlmServer;
  let ctx: TestContext;
  let chat: ChatService;
  let tenantId: string;
  const ask = (message: string, extra: { conversationId?: string; userId?: string } = {}) =>
    chat.chat({ tenantId, userId: extra.userId ?? 'alice', message, conversationId: extra.conversationId });
  const steps = () => llm.chatRequests.map(stepOf);

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    ctx = await startTestContext([AssistantModule], {
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '2',
      LLM_RETRY_BASE_DELAY_MS: '10',
      CHAT_RETRY_BASE_DELAY_MS: '10',
      // The scripted model searches off-topic queries on purpose to drive the grader's FAIL path; the relevance
      // floor would drop those passages before the grader (chat-without-llm.spec.ts tests the floor).
      CHAT_MIN_RELEVANCE: '0',
    });
    chat = ctx.get(ChatService);
    tenantId = (await ctx.get(AuthService).createTenant('chat-a', 'Chat A', undefined)).tenant.id;
    const ingestion = ctx.get(DocumentIngestionService);
    for (const [filename, content] of Object.entries(DOCS))
      await ingestion.create(tenantId, { filename, content });
    await ingestion.processQueue();
  });
  afterAll(async () => {
    await ctx?.close();
    await llm?.close();
  });
  beforeEach(() => {
    llm.reset();
    jest.restoreAllMocks();
  });

  it('INTERNAL_SEARCH: routes, searches the ingested documents, grades PASS and answers with citations', async () => {
    llm.setDefault(script());
    const result = await ask('휴가 신청 방법 알려줘');
    expect(result).toMatchObject({
      route: 'INTERNAL_SEARCH',
      route_source: 'llm',
      grade: 'PASS',
      grade_source: 'llm',
      rewritten: false,
      search_queries: ['휴가 신청'],
      answer: '연차 휴가는 HR 포털에서 신청합니다 [1].',
      answer_source: 'llm',
    });
    expect(result.citations[0]).toMatchObject({
      index: 1,
      kind: 'document',
      document_name: 'vacation.md',
      chunk_index: 0,
      page: null,
      chunk_id: expect.any(String),
    });
    expect(result.citations[0].excerpt).toContain('HR 포털에서 신청');
    expect(result.documents[0]).toMatchObject({ document_name: 'vacation.md' });
    expect(result.tool_calls).toEqual([
      expect.objectContaining({ tool: 'search_documents', query: '휴가 신청', success: true, attempts: 1 }),
    ]);
    expect(result.llm_calls.map((c) => c.step)).toEqual(['router', 'agent', 'agent', 'grader']);
    // The model got numbered passages to cite, and the first agent turn had to search.
    const agentTurns = llm.chatRequests.filter((r) => stepOf(r) === 'agent');
    expect(agentTurns[0].body.tool_choice).toBe('required');
    expect(lastMessage(agentTurns[1]).content).toMatch(/^\[1\] vacation\.md, chunk 0\n/);
  });

  it('CHITCHAT: answers directly without searching', async () => {
    llm.setDefault(script({ router: () => FakeLlmServer.text('CHITCHAT') }));
    const result = await ask('안녕하세요! 오늘 기분이 좋아요');
    expect(result).toMatchObject({
      route: 'CHITCHAT',
      answer: '안녕하세요! 무엇을 도와드릴까요?',
      grade: null,
      tool_calls: [],
      citations: [],
    });
    expect(steps()).toEqual(['router', 'chitchat']);
  });

  it('never offers or takes WEB_SEARCH without a web search endpoint', async () => {
    llm.setDefault(script({ router: () => FakeLlmServer.text('WEB_SEARCH') }));
    const result = await ask('오늘 뉴스 알려줘');
    expect(result.route).toBe('INTERNAL_SEARCH');
    expect(llm.chatRequests[0].body.messages[0].content).not.toContain('WEB_SEARCH');
  });

  it('FAIL -> one rewrite and a second search, then the answer from the new passages', async () => {
    llm.setDefault(
      script({
        agent: (request) =>
          lastMessage(request).role === 'tool'
            ? FakeLlmServer.text('잘 모르겠습니다.')
            : FakeLlmServer.toolCall('search_documents', { query: '신입사원 출퇴근 규정' }),
        grader: () => FakeLlmServer.text('FAIL'),
      }),
    );
    const result = await ask('신입사원 출퇴근 규정이 뭐야?');
    expect(result).toMatchObject({
      grade: 'FAIL',
      rewritten: true,
      search_queries: ['신입사원 출퇴근 규정', '배포 롤백 계획'],
      answer: '배포는 화요일과 목요일에 합니다 [1].',
    });
    expect(result.citations[0]).toMatchObject({ document_name: 'deploy.md' });
    expect(steps()).toEqual(['router', 'agent', 'agent', 'grader', 'rewriter', 'answer']);
    expect(result.tool_calls).toHaveLength(2);
  });

  it('caps the searches of one question at 3, keeping one for the rewrite', async () => {
    llm.setDefault(
      script({
        agent: () => FakeLlmServer.toolCall('search_documents', { query: '배포' }),
        grader: () => FakeLlmServer.text('FAIL'),
      }),
    );
    const result = await ask('배포 규칙');
    expect(result.tool_calls).toHaveLength(3);
    // The agent searched twice, then had no tool left and had to answer.
    const agentTurns = llm.chatRequests.filter((r) => stepOf(r) === 'agent');
    expect(agentTurns).toHaveLength(3);
    expect(agentTurns[2].body.tools).toBeUndefined();
    expect(result.rewritten).toBe(true);
  });

  describe('error matrix', () => {
    it('router error -> INTERNAL_SEARCH (after the client retries)', async () => {
      llm.setDefault(script({ router: () => FakeLlmServer.error(503) }));
      const result = await ask('휴가 신청 방법 알려줘');
      expect(result).toMatchObject({ route: 'INTERNAL_SEARCH', route_source: 'fallback', grade: 'PASS' });
      expect(result.llm_calls[0]).toMatchObject({ step: 'router', ok: false, attempts: 3 });
      expect(result.warnings.join(' ')).toContain('The router failed');
    });

    it('router answer unparseable -> INTERNAL_SEARCH', async () => {
      llm.setDefault(script({ router: () => FakeLlmServer.text('I think you want documents') }));
      expect(await ask('휴가 신청 방법 알려줘')).toMatchObject({
        route: 'INTERNAL_SEARCH',
        route_source: 'fallback',
      });
    });

    it('grader error -> PASS', async () => {
      llm.setDefault(script({ grader: () => FakeLlmServer.error(500) }));
      const result = await ask('휴가 신청 방법 알려줘');
      expect(result).toMatchObject({ grade: 'PASS', grade_source: 'fallback', rewritten: false });
      expect(steps()).not.toContain('rewriter');
    });

    it('rewriter error -> the original question is searched again', async () => {
      llm.setDefault(
        script({ grader: () => FakeLlmServer.text('FAIL'), rewriter: () => FakeLlmServer.error(500) }),
      );
      const question = '휴가는 어떻게 신청하나요?';
      const result = await ask(question);
      expect(result).toMatchObject({
        grade: 'FAIL',
        rewritten: false,
        search_queries: ['휴가 신청', question],
      });
      expect(result.tool_calls).toHaveLength(2);
      expect(result.warnings.join(' ')).toContain('The rewriter failed');
    });

    it('LLM errors are retried by the client with backoff', async () => {
      let agentCalls = 0;
      llm.setDefault(
        script({
          agent: (request) =>
            ++agentCalls === 1
              ? FakeLlmServer.error(503)
              : lastMessage(request).role === 'tool'
                ? FakeLlmServer.text('답 [1]')
                : FakeLlmServer.toolCall('search_documents', { query: '휴가' }),
        }),
      );
      const result = await ask('휴가 신청 방법 알려줘');
      expect(result.llm_calls[1]).toMatchObject({ step: 'agent', ok: true, attempts: 2 });
      expect(result.answer).toBe('답 [1]');
    });

    it('search errors are retried, then become an empty result and an honest answer', async () => {
      const retriever = ctx.get(DocumentRetriever);
      const failing = jest.spyOn(retriever, 'search').mockRejectedValue(new Error('search backend down'));
      llm.setDefault(script());
      const result = await ask('휴가 신청 방법 알려줘');
      expect(failing).toHaveBeenCalledTimes(3);
      expect(result).toMatchObject({
        grade: null,
        citations: [],
        answer_source: 'template',
        tool_calls: [expect.objectContaining({ success: false, attempts: 3, error: 'search backend down' })],
      });
      expect(result.answer).toContain('검색할 수 없어');
      expect(steps()).not.toContain('grader');
    });

    it('a search that fails once and then works is retried transparently', async () => {
      const retriever = ctx.get(DocumentRetriever);
      jest.spyOn(retriever, 'search').mockRejectedValueOnce(new Error('connection reset'));
      llm.setDefault(script());
      const result = await ask('휴가 신청 방법 알려줘');
      expect(result.tool_calls[0]).toMatchObject({
        success: true,
        attempts: 2,
        result_count: expect.any(Number),
      });
      expect(result.citations[0]).toMatchObject({ document_name: 'vacation.md' });
    });
  });

  it('sends the last 10 turns of the conversation and keeps it from other users', async () => {
    llm.setDefault(script({ router: () => FakeLlmServer.text('CHITCHAT') }));
    const first = await ask('turn 1');
    for (let turn = 2; turn <= 12; turn++)
      await ask(`turn ${turn}`, { conversationId: first.conversation_id });
    const last = llm.chatRequests[llm.chatRequests.length - 1];
    const sent = last.body.messages.slice(1);
    expect(sent).toHaveLength(21);
    expect(sent[0]).toEqual({ role: 'user', content: 'turn 2' });
    expect(sent[20]).toEqual({ role: 'user', content: 'turn 12' });

    const stored = await chat.conversation(tenantId, 'alice', first.conversation_id);
    expect(stored.messages).toHaveLength(24);
    expect(stored.messages.map((m) => m.position)).toEqual([...Array(24).keys()]);
    await expect(
      ask('sneaky', { conversationId: first.conversation_id, userId: 'bob' }),
    ).rejects.toMatchObject({
      code: 'CONVERSATION_NOT_FOUND',
    });
    await expect(chat.conversation(tenantId, 'bob', first.conversation_id)).rejects.toMatchObject({
      code: 'CONVERSATION_NOT_FOUND',
    });
    expect((await chat.listConversations(tenantId, 'bob', 10, 0)).total).toBe(0);
  });
});
