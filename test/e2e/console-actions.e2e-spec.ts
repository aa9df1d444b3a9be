import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { BlogToolsPublisher } from '@app/assistant';
import { ToolRegistry } from '@app/tools';
import { FakeLlmServer, RecordedLlmRequest, sleep, startTestApp, TestApp, testBackend } from '@test/support';
import { sendJson, StandInServer, startStandIn } from '../support/http-stand-in';

/**
 * Issue 29 in the console: the agent page runs seed 000's publish prompt, the held call links to the
 * pending-actions page, where a person sees the exact call, confirms or rejects it and reads the answer
 * of the resumed run; role-checked like /api/actions. Issue 31: that answer keeps its line breaks and
 * shows a pasted JSON value as a table, and a tool's rows are a table. Debian's Chromium, playwright-core.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(__dirname, '../../test-results/console');
const BLOG_KEY = 'blog-service-key-0123456789';
const ARTICLE = { title: 'K8s 1.31 upgrade notes', markdown: '# Notes\n- drained nodes', tags: ['k8s'] };
const PROMPT = '이 글을 블로그에 올려줘';
const POSTS = {
  posts: [
    { id: 11, title: '쿠버네티스 업그레이드 후기', created_at: '2026-10-01' },
    { id: 12, title: 'Postgres vacuum notes', created_at: '2026-10-08' },
  ],
  total: 2,
};

/** The model's answer after the held call: two lines and the tool's data pasted as JSON, as models do. */
function answerFromToolMessage(request: RecordedLlmRequest) {
  const last = request.body.messages.at(-1);
  const payload = last.role === 'tool' ? JSON.parse(last.content) : null;
  return payload?.success
    ? FakeLlmServer.text(
        `게시했습니다: "${ARTICLE.title}"\n주소: ${payload.data.url}\n\n\`\`\`json\n${JSON.stringify([payload.data])}\n\`\`\``,
      )
    : FakeLlmServer.text(`게시하지 않았습니다.\n이유: ${payload?.error ?? 'no tool result'}`);
}

describe(`console pending actions and agent answers in a browser (${testBackend()})`, () => {
  let t: TestApp;
  let llm: FakeLlmServer;
  let blog: StandInServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const keys: Record<string, string> = {};
  const posts = () => blog.requests.filter((r) => r.method === 'POST');

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  async function signedIn(key: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    return page;
  }
  const open = async (page: Page, route: string) => {
    await page.goto(`${t.url}/console/#/${route}`);
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    llm = await FakeLlmServer.start();
    blog = await startStandIn((req, res) => {
      if (req.headers['x-user-api-key'] !== BLOG_KEY) return sendJson(res, 401, { error: 'bad key' });
      if (req.method === 'GET') return sendJson(res, 200, POSTS);
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
    keys.admin = created.body.secret;
    for (const role of ['operator', 'reader', 'service'])
      keys[role] = (
        await t.request('POST', '/api/keys', { key: keys.admin, body: { name: role, role } })
      ).body.secret;
    await t.app.get(BlogToolsPublisher).publish({ tenantId, userId: 'test' }, blog.url);
    const registry = t.app.get(ToolRegistry);
    for (let i = 0; i < 100 && !registry.has(tenantId, 'post_blog_article'); i++) await sleep(20);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await t?.close();
    await llm?.close();
    await blog?.close();
  });
  beforeEach(() => {
    llm.reset();
    blog.requests.length = 0;
  });

  async function pausedRun(page: Page) {
    llm.enqueue(FakeLlmServer.toolCall('post_blog_article', ARTICLE), answerFromToolMessage);
    await open(page, 'agent');
    await page.getByLabel('Prompt').fill(PROMPT);
    await page.getByLabel('For user').fill('u-7');
    await page.getByRole('button', { name: 'Run agent' }).click();
    await page.getByTestId('agent-held').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('agent-status').textContent()).toBe('awaiting_confirmation');
    expect(posts()).toHaveLength(0);
  }

  it('confirms a held call from the pending-actions page and shows the resumed run’s answer', async () => {
    const admin = await signedIn(keys.admin);
    await pausedRun(admin);
    await shot(admin, '20-agent-held');
    // The agent page links to the held action on the pending-actions page.
    await admin.getByRole('link', { name: 'Confirm or reject it' }).click();
    await admin.getByRole('heading', { name: 'Pending actions' }).waitFor();
    const call = admin.getByTestId('action-call');
    await call.waitFor();
    expect(await call.count()).toBe(1);
    const text = (await call.textContent()) ?? '';
    expect(text).toMatch(/^post_blog_article\(/);
    expect(JSON.parse(text.slice('post_blog_article('.length, -1))).toMatchObject(ARTICLE);
    await shot(admin, '21-pending-actions');

    await admin.getByRole('button', { name: 'Confirm post_blog_article' }).click();
    const answer = admin.getByTestId('resumed-answer');
    await answer.waitFor({ timeout: 60_000 });
    expect(posts()).toHaveLength(1);
    expect(await admin.getByTestId('resumed-run').textContent()).toContain('completed');
    // The answer keeps its line breaks, and the JSON the model pasted is a table, not raw JSON.
    const shown = await answer.innerText();
    expect(shown).toMatch(/게시했습니다: "K8s 1\.31 upgrade notes"\n주소: https:\/\/blog\.example\/p\/77/);
    expect(shown).not.toContain('{"');
    expect(shown).not.toContain('```');
    const table = answer.locator('table');
    expect(await table.locator('th').allTextContents()).toEqual(['article_id', 'url']);
    expect(await table.locator('td').first().textContent()).toBe('77');
    // The confirmed tool result is a list of fields, not JSON.
    expect(await admin.getByTestId('resumed-run').locator('..').locator('dl').first().innerText()).toContain(
      'article_id',
    );
    await admin.getByTestId('no-pending').waitFor();
    await shot(admin, '22-action-confirmed');

    // A second decision on the same action is refused by the API: nothing is pending any more.
    const again = await t.request('GET', '/api/actions?status=pending', { key: keys.admin });
    expect(again.body.actions).toEqual([]);
  }, 120_000);

  it('rejects a held call; the resumed answer says it was not posted; the ask page links to the page', async () => {
    const operator = await signedIn(keys.operator);
    const nav = (await operator.getByRole('navigation', { name: 'Pages' }).textContent()) ?? '';
    expect(nav).toContain('Pending actions');
    expect(nav).not.toContain('Agent');
    const admin = await signedIn(keys.admin);
    await pausedRun(admin);

    await open(operator, 'ask');
    await operator.getByRole('main').getByRole('link', { name: 'Pending actions' }).click();
    await operator.getByTestId('action-call').waitFor();
    await operator.getByRole('button', { name: 'Reject post_blog_article' }).click();
    const answer = operator.getByTestId('resumed-answer');
    await answer.waitFor({ timeout: 60_000 });
    expect(await answer.innerText()).toMatch(/게시하지 않았습니다\.\n이유: .*rejected/);
    expect(await operator.getByTestId('outcome-status').first().textContent()).toBe('rejected');
    expect(posts()).toHaveLength(0);
    await shot(operator, '23-action-rejected');
  }, 120_000);

  it('shows a tool’s rows as a table on the agent page', async () => {
    llm.enqueue(
      FakeLlmServer.toolCall('get_user_blog_posts', { limit: 2 }),
      FakeLlmServer.text('최근 글 두 개입니다.\n1. 쿠버네티스 업그레이드 후기\n2. Postgres vacuum notes'),
    );
    const admin = await signedIn(keys.admin);
    await open(admin, 'agent');
    await admin.getByLabel('Prompt').fill('내 블로그 글 목록 보여줘');
    await admin.getByRole('button', { name: 'Run agent' }).click();
    const call = admin.getByTestId('agent-call-get_user_blog_posts');
    await call.waitFor({ timeout: 60_000 });
    const table = call.locator('table').first();
    await table.waitFor();
    expect(await table.locator('th').allTextContents()).toEqual(['id', 'title', 'created_at']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await table.locator('tbody tr').first().textContent()).toContain('쿠버네티스 업그레이드 후기');
    expect(await admin.getByTestId('agent-answer').innerText()).toContain('입니다.\n1. 쿠버네티스');
    await shot(admin, '24-agent-tool-table');
  }, 120_000);

  it('is role-checked like the API: a reader sees neither page, a service key runs the agent but decides nothing', async () => {
    const reader = await signedIn(keys.reader);
    const nav = (await reader.getByRole('navigation', { name: 'Pages' }).textContent()) ?? '';
    expect(nav).not.toContain('Pending actions');
    expect(nav).not.toContain('Agent');
    await open(reader, 'actions');
    expect(await reader.getByRole('heading', { name: 'Pending actions' }).count()).toBe(0);
    expect(await reader.title()).toContain('Search');
    expect((await t.request('GET', '/api/actions', { key: keys.reader })).status).toBe(403);

    const service = await signedIn(keys.service);
    const serviceNav = (await service.getByRole('navigation', { name: 'Pages' }).textContent()) ?? '';
    expect(serviceNav).toContain('Agent');
    expect(serviceNav).not.toContain('Pending actions');
    await pausedRun(service);
    expect(await service.getByTestId('agent-held').textContent()).toContain('An operator or admin confirms');
    expect(await service.getByRole('link', { name: 'Confirm or reject it' }).count()).toBe(0);
    expect((await t.request('GET', '/api/actions', { key: keys.service })).status).toBe(403);
    // Leave nothing pending for the other tests.
    const pending = await t.request('GET', '/api/actions?status=pending', { key: keys.admin });
    for (const action of pending.body.actions)
      await t.request('POST', `/api/actions/${action.action_id}/reject`, { key: keys.admin });
  }, 120_000);
});
