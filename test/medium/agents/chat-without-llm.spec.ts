import { DocumentIngestionService } from '@app/documents';
import { AssistantModule, ChatService } from '@app/assistant';
import { AuthService } from '@app/platform';
import { startTestContext, TestContext, testBackend } from '@test/support';

describe(`agentic RAG chat without a language model (${testBackend()})`, () => {
  let ctx: TestContext;
  let chat: ChatService;
  let tenantId: string;
  const ask = (message: string) => chat.chat({ tenantId, userId: 'alice', message });

  beforeAll(async () => {
    ctx = await startTestContext([AssistantModule], { LLM_BASE_URL: '' });
    chat = ctx.get(ChatService);
    tenantId = (await ctx.get(AuthService).createTenant('chat-rules', 'Rules', undefined)).tenant.id;
    const ingestion = ctx.get(DocumentIngestionService);
    await ingestion.create(tenantId, {
      filename: 'vacation.md',
      content:
        '# Vacation policy\n\nThe office opens at nine. Vacation requests go through the HR portal at least three days ahead. Managers approve them within a day.',
    });
    await ingestion.create(tenantId, {
      filename: 'backup.md',
      content:
        '# Backups\n\nNightly PostgreSQL backups are written to object storage and verified every Sunday.',
    });
    await ingestion.processQueue();
  });
  afterAll(() => ctx?.close());

  it('routes by rules, searches, grades by overlap and quotes the top passages with citations', async () => {
    const result = await ask('How do vacation requests work?');
    expect(result).toMatchObject({
      route: 'INTERNAL_SEARCH',
      route_source: 'rules',
      grade: 'PASS',
      grade_source: 'rules',
      rewritten: false,
      answer_source: 'extractive',
      llm_calls: [],
    });
    expect(result.citations[0]).toMatchObject({ index: 1, document_name: 'vacation.md', chunk_index: 0 });
    expect(result.answer).toContain(
      'Vacation requests go through the HR portal at least three days ahead. [1]',
    );
    expect(result.answer).toContain('(vacation.md, chunk 0)');
  });

  it('does not cite a passage that only shares a word with the question (the relevance floor)', async () => {
    const result = await ask('Which ergonomic chair should the new office buy for the design team?');
    expect(result.citations).toEqual([]);
    expect(result.answer_source).toBe('template');
    const onTopic = await ask('When are the nightly PostgreSQL backups verified?');
    expect(onTopic.citations[0]).toMatchObject({ document_name: 'backup.md' });
  });

  it("seed 002's example: a policy worded unlike the question is cited on keyword evidence", async () => {
    // A policy that covers more than leave: the hashed vector's cosine to the question is 0.028, below
    // CHAT_MIN_RELEVANCE; the keyword branch ranks it first, and the floor now counts that evidence.
    const other = (await ctx.get(AuthService).createTenant('chat-ko', 'Ko', undefined)).tenant.id;
    const ingestion = ctx.get(DocumentIngestionService);
    await ingestion.create(other, {
      filename: 'work-rules.md',
      content:
        '# 근무 규정\n\n연차 휴가는 HR 포털에서 신청하며, 팀장의 승인이 필요합니다. 재택 근무는 주 2회까지 가능하고, 출근 시간은 오전 10시입니다. 야근 수당은 월말에 정산합니다.',
    });
    await ingestion.create(other, {
      filename: 'deploy.md',
      content: '# 배포 절차\n\n배포는 화요일과 목요일에만 진행하며, 롤백 계획을 미리 작성합니다.',
    });
    await ingestion.processQueue();
    const result = await chat.chat({ tenantId: other, userId: 'alice', message: '휴가 신청 방법 알려줘' });
    expect(result).toMatchObject({ route: 'INTERNAL_SEARCH', grade: 'PASS', answer_source: 'extractive' });
    expect(result.citations[0]).toMatchObject({ document_name: 'work-rules.md' });
    expect(result.documents.map((d) => d.document_name)).not.toContain('deploy.md');
    expect(result.answer).toContain('연차 휴가는 HR 포털에서 신청하며');
    expect(result.answer).not.toContain('관련 문서를 찾지');
    // Off-topic Korean questions still get no citation.
    const offTopic = await chat.chat({
      tenantId: other,
      userId: 'alice',
      message: '회의실 예약은 어디서 하나요?',
    });
    expect(offTopic.citations).toEqual([]);
  });

  it('answers greetings from a template without searching', async () => {
    const result = await ask('Hello there!');
    expect(result).toMatchObject({
      route: 'CHITCHAT',
      answer_source: 'template',
      tool_calls: [],
      grade: null,
    });
  });

  it('rewrites to keywords when nothing relevant came back, and says so honestly when still nothing', async () => {
    const result = await ask('What is the cafeteria menu for the quarterly offsite?');
    expect(result).toMatchObject({
      grade: 'FAIL',
      rewritten: true,
      search_queries: [
        'What is the cafeteria menu for the quarterly offsite?',
        'cafeteria menu quarterly offsite',
      ],
      answer_source: 'template',
      citations: [],
      documents: [],
    });
    expect(result.answer).toBe('I found no documents that answer this. Try asking with other words.');
  });
});
