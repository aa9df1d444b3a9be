import { DataSource } from 'typeorm';
import { AgentRunJanitor, BlogToolsPublisher } from '@app/assistant';
import { runAsSystem } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import {
  FakeLlmServer,
  RecordedLlmRequest,
  sleep,
  startTestApp,
  startTestReplica,
  TestApp,
  testBackend,
} from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

const BLOG_KEY = 'blog-service-key-0123456789';
const ROUTE = '/internal/v1/llm/execute';
const ARTICLE = { title: 'K8s 1.31 upgrade notes', markdown: '# Notes\n- drained nodes', tags: ['k8s'] };
const PROMPT = '이 글을 블로그에 올려줘';

/** The fake model's answer after the held call: it reads the tool message the agent wrote on resume. */
function answerFromToolMessage(request: RecordedLlmRequest) {
  const last = request.body.messages.at(-1);
  const payload = last.role === 'tool' ? JSON.parse(last.content) : null;
  return payload?.success
    ? FakeLlmServer.text(`게시했습니다: "${ARTICLE.title}" ${payload.data.url}`)
    : FakeLlmServer.text(`게시하지 않았습니다: ${payload?.error ?? 'no tool result'}`);
}

describe(`agent runs paused on a held side-effect call resume on the decision (${testBackend()})`, () => {
  let t: TestApp;
  let replica: Pick<TestApp, 'request' | 'close'> | undefined;
  let llm: FakeLlmServer;
  let blog: StandInServer;
  let service: string;
  let operator: string;
  let admin: string;

  const execute = (body: Record<string, unknown>) => t.request('POST', ROUTE, { key: service, body });
  const posts = () => blog.requests.filter((r) => r.method === 'POST');

  beforeAll(async () => {
    llm = await FakeLlmServer.start();
    blog = await startStandIn((req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
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
    const tenantId: string = created.body.tenant.id;
    admin = created.body.secret;
    const key = async (role: string) =>
      (await t.request('POST', '/api/keys', { key: admin, body: { name: role, role } })).body
        .secret as string;
    [service, operator] = [await key('service'), await key('operator')];
    await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && !registry.has(tenantId, 'post_blog_article'); i++) await sleep(20);
    // A second replica on the same database confirms (native; PGlite serves one process).
    if (testBackend() === 'native') replica = await startTestReplica(t);
  });
  afterAll(async () => {
    await replica?.close();
    await t?.close();
    await llm?.close();
    await blog?.close();
  });
  beforeEach(() => {
    llm.reset();
    blog.requests.length = 0;
  });

  const decider = () => replica ?? t;

  async function pausedRun() {
    llm.enqueue(FakeLlmServer.toolCall('post_blog_article', ARTICLE), answerFromToolMessage);
    const res = await execute({ user_id: 'u-7', prompt: PROMPT, max_iterations: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'awaiting_confirmation', run_id: expect.any(String) });
    const actionId: string = res.body.tool_calls[0].pending_action.action_id;
    expect(res.body.final_response).toContain(actionId);
    expect(llm.chatRequests).toHaveLength(1);
    expect(posts()).toHaveLength(0);
    return { runId: res.body.run_id as string, actionId, requestId: res.headers.get('x-request-id') };
  }

  it('LLM: pending -> confirm on another replica -> the run resumes and its final answer names the post', async () => {
    const { runId, actionId, requestId } = await pausedRun();
    const stored = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      run_id: runId,
      status: 'awaiting_confirmation',
      mode: 'llm',
      user_id: 'u-7',
      caller: 'api',
      key_id: expect.any(String),
      request_id: requestId ?? expect.any(String),
      trace_id: expect.any(String),
      pending: [{ action_id: actionId, tool: 'post_blog_article', decision: null }],
    });

    const confirmed = await decider().request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.run).toMatchObject({ run_id: runId, status: 'completed' });
    expect(confirmed.body.run.final_response).toBe(
      `게시했습니다: "${ARTICLE.title}" https://blog.example/p/77`,
    );
    expect(posts()).toHaveLength(1);
    // The model was called again with the confirmed result as the held call's tool message.
    expect(llm.chatRequests).toHaveLength(2);
    const messages = llm.chatRequests[1].body.messages;
    expect(messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);

    const done = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(done.body).toMatchObject({
      status: 'completed',
      pending: [{ action_id: actionId, decision: 'confirmed' }],
      result: {
        run_id: runId,
        status: 'completed',
        ok: true,
        final_response: confirmed.body.run.final_response,
        tool_calls: [{ tool: 'post_blog_article', success: true, decision: 'confirmed' }],
      },
    });

    const again = await t.request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'ACTION_NOT_PENDING' });
    expect(posts()).toHaveLength(1);
  });

  it('LLM: reject -> the model hears of the rejection and the final answer says it was not posted', async () => {
    const { runId, actionId } = await pausedRun();
    const rejected = await decider().request('POST', `/api/actions/${actionId}/reject`, { key: operator });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ action_id: actionId, status: 'rejected' });
    expect(rejected.body.run).toMatchObject({ run_id: runId, status: 'completed' });
    expect(rejected.body.run.final_response).toContain('게시하지 않았습니다');
    expect(rejected.body.run.final_response).toContain('rejected');
    expect(posts()).toHaveLength(0);
    const done = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(done.body.result.tool_calls[0]).toMatchObject({ success: false, decision: 'rejected' });
  });

  it('an expired action answers 410 and its run stays paused', async () => {
    const { runId, actionId } = await pausedRun();
    await runAsSystem('test: expire an action', () =>
      t.app
        .get(DataSource)
        .query(`UPDATE tool_pending_actions SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
          actionId,
        ]),
    );
    const late = await t.request('POST', `/api/actions/${actionId}/confirm`, { key: operator });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ error: 'ACTION_EXPIRED', requestId: expect.any(String) });
    expect((await t.request('POST', `/api/actions/${actionId}/reject`, { key: operator })).status).toBe(410);
    expect(posts()).toHaveLength(0);
    const run = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(run.body.status).toBe('awaiting_confirmation');
  });

  /** What a replica that died while continuing a run leaves: every call decided, the run `resuming`. */
  async function stuckResuming(runId: string, age: string, takeovers?: number) {
    const decision = {
      decision: 'confirmed',
      decided_by: 'operator',
      result: { success: true, data: { article_id: 77, url: 'https://blog.example/p/77' } },
    };
    await runAsSystem('test: a replica died while resuming', () =>
      t.app.get(DataSource).query(
        `UPDATE agent_runs SET status = 'resuming', updated_at = now() - $2::interval,
                pending = jsonb_build_array(pending->0 || $3::jsonb),
                state = CASE WHEN $4::int IS NULL THEN state ELSE jsonb_set(state, '{takeovers}', to_jsonb($4::int)) END
          WHERE id = $1`,
        [runId, age, JSON.stringify(decision), takeovers ?? null],
      ),
    );
  }

  it('a run stuck resuming (its replica died) is taken over after the lease and finished; a fresh one is left alone', async () => {
    const { runId, actionId } = await pausedRun();
    await stuckResuming(runId, '1 minute');
    const janitor = t.app.get(AgentRunJanitor);
    // Within the lease (AGENT_RESUME_LEASE_SECONDS, default 600 s) the run is still someone's.
    expect(await janitor.sweep()).toBe(0);
    expect((await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service })).body.status).toBe(
      'resuming',
    );

    await stuckResuming(runId, '1 hour');
    expect(await janitor.sweep()).toBe(1);
    const done = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(done.body).toMatchObject({
      status: 'completed',
      pending: [{ action_id: actionId, decision: 'confirmed' }],
      result: { final_response: `게시했습니다: "${ARTICLE.title}" https://blog.example/p/77` },
    });
    // The confirmed call is not run again: its recorded result went to the model.
    expect(posts()).toHaveLength(0);
    expect(llm.chatRequests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(await janitor.sweep()).toBe(0);
  });

  it('a run stuck resuming after AGENT_RESUME_MAX_ATTEMPTS takeovers is marked failed', async () => {
    const { runId } = await pausedRun();
    await stuckResuming(runId, '1 hour', 3);
    expect(await t.app.get(AgentRunJanitor).sweep()).toBe(1);
    const run = await t.request('GET', `/internal/v1/llm/runs/${runId}`, { key: service });
    expect(run.body.status).toBe('failed');
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('an unknown run id is a 404 JSON error', async () => {
    const res = await t.request('GET', '/internal/v1/llm/runs/not-a-run', { key: service });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'AGENT_RUN_NOT_FOUND', requestId: expect.any(String) });
  });

  it('a published tool_access rule with requires_confirmation: false runs the tool at once', async () => {
    const policy = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'policy',
        name: 'trusted-blog',
        content: {
          policy_type: 'tool_access',
          settings: { tools: { post_blog_article: { requires_confirmation: false } } },
        },
      },
    });
    expect(policy.status).toBe(201);
    expect((await t.request('POST', `/api/assets/${policy.body.id}/publish`, { key: admin })).status).toBe(
      200,
    );
    try {
      llm.enqueue(FakeLlmServer.toolCall('post_blog_article', ARTICLE), answerFromToolMessage);
      let res = await execute({ user_id: 'u-7', prompt: PROMPT });
      // The policy reaches the registry through the asset events; wait until it applies.
      for (let i = 0; i < 50 && res.body.status === 'awaiting_confirmation'; i++) {
        await sleep(50);
        llm.reset();
        llm.enqueue(FakeLlmServer.toolCall('post_blog_article', ARTICLE), answerFromToolMessage);
        res = await execute({ user_id: 'u-7', prompt: PROMPT });
      }
      expect(res.body).toMatchObject({
        status: 'completed',
        final_response: `게시했습니다: "${ARTICLE.title}" https://blog.example/p/77`,
        tool_calls: [{ tool: 'post_blog_article', success: true }],
      });
      expect(res.body.tool_calls[0].pending_action).toBeUndefined();
      expect(posts().length).toBeGreaterThanOrEqual(1);
    } finally {
      await t.request('POST', `/api/assets/${policy.body.id}/archive`, { key: admin });
    }
  });

  it('fallback (model down): a held call pauses the run; confirm resumes it with the template answer', async () => {
    // The fallback never picks a side-effect tool on its own, so a rule holds the read tool it picks.
    const policy = await t.request('POST', '/api/assets', {
      key: admin,
      body: {
        asset_type: 'policy',
        name: 'confirm-reads',
        content: {
          policy_type: 'tool_access',
          settings: { tools: { get_user_blog_posts: { requires_confirmation: true } } },
        },
      },
    });
    expect((await t.request('POST', `/api/assets/${policy.body.id}/publish`, { key: admin })).status).toBe(
      200,
    );
    try {
      llm.setDefault(FakeLlmServer.error(500));
      const ask = () => execute({ user_id: 42, prompt: '내 블로그 글 목록 보여줘' });
      let res = await ask();
      for (let i = 0; i < 50 && res.body.status !== 'awaiting_confirmation'; i++) {
        await sleep(50);
        res = await ask();
      }
      expect(res.body).toMatchObject({ mode: 'fallback', status: 'awaiting_confirmation' });
      const held = res.body.tool_calls.find((c: any) => c.tool === 'get_user_blog_posts');
      const actionId: string = held.pending_action.action_id;
      expect(blog.requests.filter((r) => r.method === 'GET')).toHaveLength(0);

      const confirmed = await decider().request('POST', `/api/actions/${actionId}/confirm`, {
        key: operator,
      });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.run).toMatchObject({ run_id: res.body.run_id, status: 'completed' });
      expect(confirmed.body.run.final_response).toContain('get_user_blog_posts: 확인 후 실행했습니다');
      expect(confirmed.body.run.final_response).toContain('https://blog.example/p/77');
      const run = await t.request('GET', `/internal/v1/llm/runs/${res.body.run_id}`, { key: service });
      expect(run.body).toMatchObject({
        mode: 'fallback',
        status: 'completed',
        result: { mode: 'fallback', status: 'completed' },
      });
      expect(run.body.result.tool_calls.find((c: any) => c.tool === 'get_user_blog_posts')).toMatchObject({
        success: true,
        decision: 'confirmed',
      });
    } finally {
      llm.setDefault(null);
      await t.request('POST', `/api/assets/${policy.body.id}/archive`, { key: admin });
    }
  });

  it('stage runs store the user, request, trace, caller and key ids; GET /ops/stage/runs filters on them', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await t.request('POST', '/ops/stage/execute', {
      key: operator,
      headers: { 'x-request-id': 'req-find-me-1', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { stage_name: 'lookup', tools: [{ tool_name: 'get_user_blog_posts', input: { user_id: 5 } }] },
    });
    expect(res.status).toBe(200);
    const ids = {
      run_id: res.body.run_id,
      request_id: 'req-find-me-1',
      trace_id: traceId,
      caller: 'operator',
      key_id: expect.any(String),
      user_id: expect.any(String),
    };
    expect(res.body).toMatchObject(ids);
    for (const filter of [
      'request_id=req-find-me-1',
      `trace_id=${traceId}`,
      `trace_id=${traceId}&caller=operator`,
    ]) {
      const list = await t.request('GET', `/ops/stage/runs?${filter}`, { key: operator });
      expect(list.status).toBe(200);
      expect(list.body.runs).toEqual([expect.objectContaining(ids)]);
    }
    const none = await t.request('GET', `/ops/stage/runs?trace_id=${traceId}&caller=agent`, {
      key: operator,
    });
    expect(none.body).toMatchObject({ runs: [], total: 0 });
    expect((await t.request('GET', '/ops/stage/runs?caller=root', { key: operator })).status).toBe(400);
    const stored = await t.request('GET', `/ops/stage/runs/${res.body.run_id}`, { key: operator });
    expect(stored.body).toMatchObject(ids);
  });
});
