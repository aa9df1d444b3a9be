import type http from 'node:http';
import { BlogToolsPublisher } from '@app/assistant';
import { ToolRegistry } from '@app/tools';
import {
  chatScript,
  chatStepOf,
  lastLlmMessage,
  FakeLlmServer,
  postEventStream,
  ReceivedEvent,
  SEED_QUERY,
  sleep,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const BLOG_KEY = 'blog-service-key-0123456789';
const ROUTE = '/internal/v1/llm/execute';
const POSTS = { posts: [{ id: 11, title: 'Kafka consumer lag, explained' }], total: 1 };

/** A promise the test resolves when it has seen what it waits for. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const names = (events: ReceivedEvent[]) =>
  events.map((e) => (e.data.step ? `${e.event}:${e.data.step}` : e.event));

describe(`streamed runs: text/event-stream on the agent, chat and ask (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let blog: StandInServer;
  let service: string;
  let operator: string;
  let reader: string;
  /** How the blog answers GET: at once, after the test opened a gate, or never (until the caller gives up). */
  let blogGet: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;
  const blogClosed: string[] = [];

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    blog = await startStandIn(async (req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
      if (req.method === 'GET') return blogGet(req, res);
      return sendJson(res, 201, { article_id: 77, url: 'https://blog.example/p/77' });
    });
    t = await startTestApp({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'fake-model',
      LLM_MAX_RETRIES: '1',
      LLM_RETRY_BASE_DELAY_MS: '10',
      HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blog.port}`,
      OPS_SECRET_BLOG_API_KEY: BLOG_KEY,
      SECRET_ENV_GRANTS: 'streamco:OPS_SECRET_BLOG_API_KEY',
      DOCUMENTS_WORKER_CONCURRENCY: '0',
    });
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'streamco' } });
    const tenantId: string = created.body.tenant.id;
    const admin: string = created.body.secret;
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: role, role } })).body
        .secret as string;
    [service, operator, reader] = [await key('service'), await key('operator'), await key('reader')];
    await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && !registry.has(tenantId, 'get_user_blog_posts'); i++) await sleep(20);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await blog?.close();
  });
  beforeEach(() => {
    llm.reset();
    blog.requests.length = 0;
    blogClosed.length = 0;
    blogGet = (_req, res) => sendJson(res, 200, POSTS);
  });

  const gets = () => blog.requests.filter((r) => r.method === 'GET');

  it('agent with the LLM: steps, tool results and answer tokens arrive before the run ends; done is the JSON body', async () => {
    const seenResult = gate();
    llm.enqueue(FakeLlmServer.toolCall('get_user_blog_posts', { limit: 5 }), async () => {
      // The model's second turn waits until the client has the tool's result: the run cannot end before.
      await seenResult.opened;
      return { content: '최근 글은 "Kafka consumer lag, explained" 입니다.', chunkChars: 3 };
    });
    const call = await postEventStream(t.url, ROUTE, {
      key: service,
      body: { user_id: 42, prompt: '내 블로그 글 목록 보여줘' },
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const result = await call.next((e) => e.event === 'tool.result');
    expect(result.data).toMatchObject({ tool: 'get_user_blog_posts', success: true });
    seenResult.open();
    const events = await call.done;

    expect(names(events)).toEqual([
      'run.started',
      'step.started:model',
      'step.started:tool',
      'tool.result:tool',
      'step.started:model',
      ...events.filter((e) => e.event === 'answer.delta').map(() => 'answer.delta'),
      'done',
    ]);
    const deltas = events.filter((e) => e.event === 'answer.delta');
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1)!.data;
    expect(deltas.map((e) => e.data.text).join('')).toBe(done.final_response);
    expect(done).toMatchObject({
      run_id: events[0].data.run_id,
      status: 'completed',
      mode: 'llm',
      final_response: '최근 글은 "Kafka consumer lag, explained" 입니다.',
      tool_calls: [{ tool: 'get_user_blog_posts', success: true }],
    });
    // The model was asked to stream.
    expect(llm.chatRequests.map((r) => r.body.stream)).toEqual([true, true]);
    // The same final body as the JSON endpoint stores and returns.
    const stored = await t.request('GET', `/internal/v1/llm/runs/${done.run_id}`, { key: service });
    expect(stored.body).toMatchObject({ status: 'completed', caller: 'api', user_id: '42' });
    expect(stored.body.result).toEqual(done);
  });

  it('agent through the fallback planner: the tool step is streamed before the run ends', async () => {
    llm.setDefault(FakeLlmServer.error(500));
    const seenStep = gate();
    blogGet = async (_req, res) => {
      // The tool answers only once the client has seen its step start.
      await seenStep.opened;
      sendJson(res, 200, POSTS);
    };
    const call = await postEventStream(t.url, ROUTE, {
      key: service,
      body: { user_id: 42, prompt: '내 블로그 글 목록 보여줘' },
    });
    const step = await call.next((e) => e.event === 'step.started' && e.data.step === 'tool');
    expect(step.data).toMatchObject({ tool: 'get_user_blog_posts' });
    seenStep.open();
    const events = await call.done;
    expect(names(events)).toEqual([
      'run.started',
      'step.started:model',
      'step.started:plan',
      'step.started:tool',
      'tool.result:tool',
      'done',
    ]);
    expect(events.at(-1)!.data).toMatchObject({
      mode: 'fallback',
      status: 'completed',
      tool_calls: [{ tool: 'get_user_blog_posts', success: true }],
    });
  });

  it('a client that disconnects cancels the run: the next step never runs and the run is stored cancelled', async () => {
    const hanging: Array<() => void> = [];
    blogGet = (req, res) =>
      new Promise<void>((resolve) => {
        res.on('close', () => {
          blogClosed.push(req.url ?? '');
          resolve();
        });
        hanging.push(() => {
          sendJson(res, 200, POSTS);
          resolve();
        });
      });
    llm.enqueue(
      FakeLlmServer.toolCall('get_user_blog_posts', { limit: 5 }),
      FakeLlmServer.toolCall('get_user_blog_posts', { limit: 50 }),
      FakeLlmServer.text('never written'),
    );
    const call = await postEventStream(t.url, ROUTE, {
      key: service,
      body: { user_id: 42, prompt: '내 블로그 글 목록 보여줘' },
    });
    const started = await call.next((e) => e.event === 'run.started');
    await call.next((e) => e.event === 'step.started' && e.data.step === 'tool');
    // Disconnect while the blog is answering the first tool call.
    for (let i = 0; i < 200 && hanging.length === 0; i++) await sleep(10);
    expect(hanging).toHaveLength(1);
    call.abort();
    await call.done;

    let run: any;
    for (let i = 0; i < 100; i++) {
      run = (await t.request('GET', `/internal/v1/llm/runs/${started.data.run_id}`, { key: service })).body;
      if (run.status !== 'running') break;
      await sleep(50);
    }
    hanging.forEach((answer) => answer());
    expect(run).toMatchObject({ status: 'cancelled', result: { status: 'cancelled' } });
    // The tool call in flight was aborted, and neither the second model turn nor its tool call ran.
    expect(blogClosed).toHaveLength(1);
    expect(gets()).toHaveLength(1);
    expect(llm.chatRequests).toHaveLength(1);
    const listed = await t.request('GET', `/internal/v1/llm/runs?status=cancelled`, { key: service });
    expect(listed.body.runs.map((r: any) => r.run_id)).toContain(started.data.run_id);
  });

  it('chat: route, search and answer stream as they happen; the turn stores and lists by its request id', async () => {
    const seenSearch = gate();
    const script = chatScript();
    // The search agent answers from its results only once the client saw them.
    llm.setDefault(async (request) => {
      if (chatStepOf(request) === 'agent' && lastLlmMessage(request).role === 'tool') await seenSearch.opened;
      return script(request);
    });
    const call = await postEventStream(t.url, '/api/chat', {
      key: reader,
      body: { message: '휴가 신청 방법 알려줘' },
      headers: { 'x-request-id': 'chat-stream-1' },
    });
    expect(call.status).toBe(200);
    const search = await call.next((e) => e.event === 'tool.result');
    expect(search.data).toMatchObject({ step: 'search', tool: 'search_documents' });
    seenSearch.open();
    const events = await call.done;
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(names(events).slice(0, 5)).toEqual([
      'run.started',
      'step.started:router',
      'step.started:agent',
      'step.started:search',
      'tool.result:search',
    ]);
    expect(
      events
        .filter((e) => e.event === 'answer.delta')
        .map((e) => e.data.text)
        .join(''),
    ).toBe(done.data.answer);
    expect(done.data).toMatchObject({
      conversation_id: events[0].data.conversation_id,
      question_id: events[0].data.question_id,
      request_id: 'chat-stream-1',
      trace_id: expect.any(String),
      key_id: expect.any(String),
      caller: 'api',
    });
    const listed = await t.request('GET', '/api/chat/conversations?request_id=chat-stream-1', {
      key: reader,
    });
    expect(listed.body.items.map((c: any) => c.id)).toEqual([done.data.conversation_id]);
    const conversation = await t.request('GET', `/api/chat/conversations/${done.data.conversation_id}`, {
      key: reader,
    });
    expect(conversation.body.messages).toEqual([
      expect.objectContaining({ id: done.data.question_id, role: 'user', request_id: 'chat-stream-1' }),
      expect.objectContaining({ id: done.data.message_id, role: 'assistant', request_id: 'chat-stream-1' }),
    ]);
    const none = await t.request('GET', '/api/chat/conversations?request_id=no-such-request', {
      key: reader,
    });
    expect(none.body).toMatchObject({ items: [], total: 0 });
  });

  it('ask: plan, steps and answer stream, done is the JSON body', async () => {
    const call = await postEventStream(t.url, '/ops/ask', {
      key: operator,
      body: { query: SEED_QUERY, use_llm: false },
    });
    expect(call.status).toBe(200);
    const events = await call.done;
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(names(events).slice(0, 2)).toEqual(['run.started', 'step.started:plan']);
    const results = events.filter((e) => e.event === 'tool.result');
    expect(results.map((e) => e.data.id)).toEqual(
      (done.data.execution?.steps ?? []).map((s: any) => s.step_id),
    );
    expect(names(events)).toContain('step.started:answer');
    // Without a model: the answer's preamble (knowledge hint, missing data) then the template, in one
    // delta each; put together they are the answer.
    const deltas = events.filter((e) => e.event === 'answer.delta');
    expect(events.at(-2)!.event).toBe('answer.delta');
    expect(deltas.map((e) => e.data.text).join('')).toBe(done.data.answer);
    expect(done.data).toMatchObject({ query: SEED_QUERY, planning: expect.any(Object) });
  });

  it('ask with the LLM: the answer arrives as the model streams it; the deltas put together are the answer', async () => {
    const answer = 'CPU 사용률 상위 5개 prod 서버를 조회했습니다. 데이터가 없으면 그렇게 말합니다.';
    // Planning is not streamed (and fails here, so the deterministic planner plans); the answer is.
    llm.setDefault((request) =>
      request.body.stream ? { content: answer, chunkChars: 5 } : FakeLlmServer.error(500),
    );
    try {
      const call = await postEventStream(t.url, '/ops/ask', { key: operator, body: { query: SEED_QUERY } });
      expect(call.status).toBe(200);
      const events = await call.done;
      const done = events.at(-1)!;
      expect(done.event).toBe('done');
      expect(done.data).toMatchObject({ answer_source: 'llm', answer: expect.stringContaining(answer) });
      const deltas = events.filter((e) => e.event === 'answer.delta').map((e) => e.data.text as string);
      // One delta per streamed piece of the model's text (after what the answer says first, if anything).
      expect(deltas.filter((text) => answer.includes(text)).length).toBeGreaterThanOrEqual(
        Math.ceil(answer.length / 5),
      );
      expect(deltas.join('')).toBe(done.data.answer);
      const answering = llm.chatRequests.filter((r) => r.body.stream === true);
      expect(answering).toHaveLength(1);
    } finally {
      llm.setDefault(null);
    }
  });

  it('bad input and errors before the first event are plain JSON errors', async () => {
    const invalid = await postEventStream(t.url, ROUTE, { key: service, body: { prompt: 'x' } });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ error: 'VALIDATION_FAILED', requestId: expect.any(String) });
    const missing = await postEventStream(t.url, '/api/chat', {
      key: reader,
      body: { message: 'hi', conversation_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: 'CONVERSATION_NOT_FOUND' });
  });
});
