import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestApp, TestApp, testBackend } from '@test/support';

/**
 * Issue 17: the web console used as a person would, in Debian's Chromium (playwright-core, no browser
 * download), against the app the e2e tier boots. Screenshots of each page go to test-results/console/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(__dirname, '../../test-results/console');
const RUNBOOK = `# Payment API runbook

When the payment processing system reports timeouts, check the payment gateway connection pool and
restart the payment worker. Escalate to the payments on-call engineer after two failed restarts.

Pool settings: ${'payment-gateway-connection-pool-max-size=64;'.repeat(16)}
`;
const NOTES = `# Database notes

The inventory database runs on PostgreSQL. Vacuum runs nightly; replication lag alerts page the DBA.
`;

describe(`web console in a browser (${testBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: Page;
  const contexts: BrowserContext[] = [];

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  async function signedIn(key: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
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
    t = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await t?.close();
  });

  it('redirects / to the console, serves it under a CSP with no inline script, and refuses a wrong key', async () => {
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const html = await fetch(`${t.url}/console/`);
    expect(html.status).toBe(200);
    const csp = html.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(await html.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);

    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
    await page.goto(`${t.url}/`);
    expect(page.url()).toBe(`${t.url}/console/`);
    await shot(page, '01-sign-in');
    await page.getByLabel('API key').fill('ops_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('refused');
    // Swagger UI lives under the same policy.
    await page.goto(`${t.url}/docs`);
    await page.locator('.swagger-ui .opblock').first().waitFor();
    expect(violations.filter((v) => v.includes('Content Security Policy'))).toEqual([]);
  });

  it('signs in as admin, uploads two documents and sees them reach done', async () => {
    admin = await signedIn(t.adminKey);
    expect(await admin.evaluate('sessionStorage.length')).toBe(1);
    expect(admin.url()).not.toContain(t.adminKey);
    await open(admin, 'documents');
    await admin.getByLabel('Files to upload').setInputFiles([
      { name: 'payment-runbook.md', mimeType: 'text/markdown', buffer: Buffer.from(RUNBOOK) },
      { name: 'db-notes.md', mimeType: 'text/markdown', buffer: Buffer.from(NOTES) },
    ]);
    for (const name of ['payment-runbook.md', 'db-notes.md'])
      await admin
        .getByTestId(`doc-${name}`)
        .getByTestId('doc-status')
        .filter({ hasText: 'done' })
        .waitFor({ timeout: 90_000 });
    await admin.getByTestId('doc-payment-runbook.md').getByRole('button', { name: 'Chunks' }).click();
    await admin.getByRole('heading', { name: 'Chunks of payment-runbook.md' }).waitFor();
    // Issue 31: the chunk view opens at the top (above the upload form and the list), in view, and
    // wraps the runbook's long line instead of cutting it.
    const view = (await admin.getByTestId('chunk-view').boundingBox())!;
    const upload = (await admin.getByRole('heading', { name: 'Upload' }).boundingBox())!;
    expect(view.y).toBeGreaterThanOrEqual(0);
    expect(view.y).toBeLessThan(upload.y);
    expect(view.y).toBeLessThan(900);
    const overflow = await admin
      .getByTestId('chunk-view')
      .locator('pre')
      .evaluateAll((pres) => pres.map((pre) => pre.scrollWidth - pre.clientWidth));
    expect(overflow.length).toBeGreaterThan(0);
    expect(Math.max(...overflow)).toBeLessThanOrEqual(0);
    expect(await admin.getByTestId('chunk-view').textContent()).toContain('max-size=64;payment');
    await shot(admin, '02-documents');
  }, 120_000);

  it('asks before deleting a document', async () => {
    await open(admin, 'documents');
    await admin
      .getByLabel('Files to upload')
      .setInputFiles([
        { name: 'old-notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Old\n\nStale.') },
      ]);
    const row = admin.getByTestId('doc-old-notes.md');
    await row.getByTestId('doc-status').filter({ hasText: 'done' }).waitFor({ timeout: 90_000 });
    const asked = admin.waitForEvent('dialog');
    const clicked = row.getByRole('button', { name: 'Delete' }).click();
    const dialog = await asked;
    expect(dialog.message()).toContain('Delete old-notes.md?');
    await dialog.dismiss();
    await clicked;
    await admin.getByRole('button', { name: 'Refresh' }).click();
    await row.getByRole('button', { name: 'Delete' }).waitFor();
    admin.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  }, 120_000);

  it('shows a failed document with its error and offers no Retry when the error is not retryable', async () => {
    await open(admin, 'documents');
    await admin.getByLabel('Files to upload').setInputFiles([
      {
        name: 'broken.docx',
        mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        buffer: Buffer.from('this is not a zip archive'),
      },
    ]);
    const row = admin.getByTestId('doc-broken.docx');
    await row.getByTestId('doc-status').filter({ hasText: 'failed' }).waitFor({ timeout: 90_000 });
    // A corrupt file fails the same way every time (`retryable: false`): no Retry, and it says why.
    const status = await row.getByTestId('doc-status').textContent();
    expect(status).toContain('DOCUMENT_CORRUPT');
    expect(status).toContain('not retryable');
    const listed = await admin.request.get(`${t.url}/api/documents?status=failed`, {
      headers: { authorization: `Bearer ${t.adminKey}` },
    });
    const failed = (await listed.json()).items.find((d: any) => d.filename === 'broken.docx');
    expect(failed.error_details.retryable).toBe(false);
    expect(await row.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await admin.getByRole('button', { name: 'Retry all failed' }).count()).toBe(0);
    await shot(admin, '02b-documents-failed');
  }, 120_000);

  it('searches in the three modes and shows the fused score beside each branch', async () => {
    await open(admin, 'search');
    await admin.getByLabel('Query').fill('payment gateway timeouts');
    for (const mode of ['text', 'vector', 'hybrid']) {
      await admin.getByLabel(mode, { exact: true }).check();
      await admin.getByRole('button', { name: 'Search' }).click();
      const summary = admin.getByTestId('search-summary');
      await summary.filter({ hasText: ` · ${mode} · ` }).waitFor();
      expect(await summary.textContent()).toMatch(/^[1-9]\d* results/);
      await admin.locator('.result').first().getByText('payment-runbook.md').waitFor();
      expect(await admin.locator('.result').first().textContent()).toContain('fused');
      if (mode === 'hybrid') await shot(admin, '03-search');
    }
  });

  it('chats with citations that link to the document', async () => {
    await open(admin, 'chat');
    await admin.getByLabel('Message').fill('What should I do when the payment gateway times out?');
    await admin.getByRole('button', { name: 'Send' }).click();
    await admin.getByText('Assistant:').waitFor({ timeout: 60_000 });
    const citation = admin.getByRole('link', { name: /payment-runbook\.md/ }).first();
    await citation.waitFor();
    await shot(admin, '04-chat');
    await citation.click();
    await admin.getByRole('heading', { name: 'Chunks of payment-runbook.md' }).waitFor();
  }, 90_000);

  it('creates, publishes, breaks and force-publishes, diffs and rolls back a tool asset', async () => {
    await open(admin, 'assets');
    // Issue 31: the type filter offers every asset type, `stage` included.
    await admin.locator('#asset-type').selectOption('stage');
    await admin.locator('#asset-type').selectOption('');
    await admin.getByRole('button', { name: 'Create draft' }).click();
    await admin.getByTestId('asset-state').filter({ hasText: 'draft' }).waitFor();
    // The detail opens instead of the new-asset editor, in view.
    expect(await admin.getByRole('heading', { name: 'New asset' }).count()).toBe(0);
    const detail = (await admin.getByTestId('asset-detail').boundingBox())!;
    expect(detail.y).toBeGreaterThanOrEqual(0);
    expect(detail.y).toBeLessThan(900);
    await admin.getByRole('button', { name: 'Publish', exact: true }).click();
    await admin.getByRole('status').filter({ hasText: 'Published version 1' }).waitFor();
    expect(await admin.getByTestId('contract-report').textContent()).toContain('No breaking changes');

    const editor = admin.getByLabel('Definition (JSON)');
    const definition = JSON.parse(await editor.inputValue());
    await editor.fill('{ not json');
    expect(await admin.locator('#asset-json-check').textContent()).toContain('Not JSON');
    definition.tool_input_schema.properties.environment.enum = ['prod', 'staging'];
    await editor.fill(JSON.stringify(definition, null, 2));
    await admin.getByRole('button', { name: 'Save draft' }).click();
    await admin.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    // Serving version 1 with pending edits: listed as published, not as a draft.
    const listed = admin.getByRole('row').filter({ hasText: 'cpu_top' }).getByTestId('asset-list-state');
    await listed.filter({ hasText: 'unpublished changes' }).waitFor();
    expect(await listed.textContent()).toBe('published · unpublished changes');
    await admin.getByRole('button', { name: 'Publish', exact: true }).click();
    await admin.getByTestId('publish-blocked').waitFor();
    expect(await admin.getByRole('alert').textContent()).toContain('ASSET_BREAKING_CHANGE');
    await shot(admin, '05-assets-breaking');
    admin.once('dialog', (dialog) => void dialog.accept());
    await admin.getByRole('button', { name: 'Force publish' }).click();
    await admin.getByRole('status').filter({ hasText: 'Published version 2' }).waitFor();
    expect(await admin.getByTestId('contract-report').textContent()).toContain('forced');

    await admin.getByLabel('Diff from').fill('1');
    await admin.getByLabel('to', { exact: true }).fill('2');
    await admin.getByRole('button', { name: 'Compare' }).click();
    expect(await admin.getByTestId('diff').textContent()).toContain('tool_input_schema');
    await admin.getByRole('button', { name: 'Roll back to 1' }).click();
    await admin.getByRole('status').filter({ hasText: 'version 3 restores version 1' }).waitFor();
    await admin.getByTestId('history').getByText('rollback of 1').waitFor();
    // The contract report was of version 2, which is no longer served.
    expect(await admin.getByTestId('contract-report').count()).toBe(0);
    await shot(admin, '06-assets');
    // Archiving asks first.
    const asked = admin.waitForEvent('dialog');
    const clicked = admin.getByRole('button', { name: 'Archive' }).click();
    const dialog = await asked;
    expect(dialog.message()).toContain('Archive tool cpu_top?');
    await dialog.dismiss();
    await clicked;
    expect(await admin.getByTestId('asset-state').textContent()).not.toContain('archived');
    admin.once('dialog', (dialog) => void dialog.accept());
    await admin.getByRole('button', { name: 'Archive' }).click();
    await admin.getByTestId('asset-state').filter({ hasText: 'archived' }).waitFor();
  });

  it('runs a tool from a form built from its input schema, and a two-step stage with its timeline', async () => {
    await open(admin, 'tools');
    await admin.getByLabel('Tool', { exact: true }).selectOption('ci_lookup');
    await admin.getByRole('button', { name: 'Run ci_lookup' }).click();
    await admin.getByTestId('tool-result').filter({ hasText: 'Success' }).waitFor();
    await admin.getByRole('button', { name: 'Run stage' }).click();
    const run = admin.getByTestId('stage-run');
    await run.waitFor();
    for (const step of ['servers', 'details'])
      expect(await run.getByTestId(`step-${step}`).textContent()).toContain('ci_lookup');
    expect(await run.getByTestId('step-details').textContent()).toContain('after servers');
    await admin.getByTestId('stored-runs').getByText('console').first().waitFor();
    await shot(admin, '07-tools-and-stages');
  });

  it('asks a question and shows the plan with the planner that made it', async () => {
    await open(admin, 'ask');
    await admin.getByLabel('Question').fill('Which prod servers have the highest CPU usage?');
    await admin.getByRole('button', { name: 'Plan only' }).click();
    await admin.getByTestId('plan').or(admin.getByRole('alert')).first().waitFor();
    await admin.getByRole('button', { name: 'Ask' }).click();
    await admin.getByTestId('answer').or(admin.getByRole('alert')).first().waitFor({ timeout: 60_000 });
    expect(await admin.getByTestId('plan').textContent()).toContain('Planner:');
    await shot(admin, '08-plan-and-ask');
  }, 90_000);

  it("shows why a plan was chosen: the chosen tool's published hint, the threshold, parameter sources", async () => {
    // A tenant of another business that published its own tool with planning hints.
    const created = await t.request('POST', '/api/tenants', { body: { slug: 'console-hr' } });
    const key: string = created.body.secret;
    const asset = await t.request('POST', '/api/assets', {
      key,
      body: {
        asset_type: 'tool',
        name: 'leave_balance',
        description: '직원 휴가 잔여일수 조회 / remaining leave days of an employee',
        tool_type: 'http',
        tool_config: {
          method: 'GET',
          url: 'https://hr.example.com/api/leave',
          query: { employee: '{{input.employee}}' },
        },
        tool_input_schema: {
          type: 'object',
          properties: { employee: { type: 'string', description: 'Employee name or id' } },
          required: ['employee'],
        },
        planning_hints: { examples: { ko: ['연차 며칠 남았어?'] }, keywords: { ko: ['연차', '휴가'] } },
      },
    });
    expect(asset.status).toBe(201);
    expect((await t.request('POST', `/api/assets/${asset.body.id}/publish`, { key })).status).toBe(200);

    const page = await signedIn(key);
    await open(page, 'ask');
    await page.getByLabel('Question').fill('연차 며칠 남았어?');
    await page.getByRole('button', { name: 'Plan only' }).click();
    const why = page.getByTestId('why');
    await why.waitFor();
    expect(await page.getByTestId('why-planner').textContent()).toMatch(/^fallback: no LLM is configured/);
    const chosen = page.getByTestId('why-chosen-leave_balance');
    expect(await chosen.textContent()).toMatch(/score [\d.]+ · chosen: score [\d.]+ reached/);
    // The hint keyword the admin published is named as the evidence.
    expect(await chosen.getByTestId('evidence-leave_balance').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^hint keyword “연차”/)]),
    );
    // The required input the question does not give is asked for, and says so.
    const parameters = await page.getByTestId('why-parameters').innerText();
    expect(parameters).toMatch(/s1\s+employee\s+—\s+needs input/);
    expect(await why.textContent()).toMatch(/Knowledge kv1-[0-9a-f]{16}/);
    await shot(page, '08b-why-this-plan');
  }, 90_000);

  it('gives a reader key no admin or operator actions', async () => {
    await open(admin, 'keys');
    await admin.getByLabel('Name').fill('viewer');
    await admin.getByLabel('Role').selectOption('reader');
    await admin.getByRole('button', { name: 'Create key' }).click();
    await admin.getByRole('status').filter({ hasText: 'Key viewer created' }).waitFor();
    const secret = (await admin.getByTestId('new-secret').textContent())!.trim();
    await shot(admin, '09-keys');

    const reader = await signedIn(secret);
    expect(await reader.getByTestId('role').textContent()).toBe('reader');
    const nav = await reader.getByRole('navigation', { name: 'Pages' }).textContent();
    expect(nav).not.toContain('Keys');
    expect(nav).not.toContain('Tools and stages');
    await open(reader, 'assets');
    expect(await reader.getByRole('heading', { name: 'New asset' }).count()).toBe(0);
    await open(reader, 'documents');
    await reader.getByTestId('doc-db-notes.md').waitFor();
    expect(await reader.getByLabel('Files to upload').count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await reader.getByTestId('doc-broken.docx').waitFor();
    expect(await reader.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await open(reader, 'keys');
    expect(await reader.getByRole('heading', { name: 'Create a key' }).count()).toBe(0);
    await shot(reader, '10-reader');
  });

  it('refuses a key once it is revoked', async () => {
    await open(admin, 'keys');
    await admin.getByLabel('Name').fill('temporary');
    await admin.getByLabel('Role').selectOption('operator');
    await admin.getByRole('button', { name: 'Create key' }).click();
    await admin.getByRole('status').filter({ hasText: 'Key temporary created' }).waitFor();
    const secret = (await admin.getByTestId('new-secret').textContent())!.trim();
    const temporary = await signedIn(secret);
    await admin.getByRole('button', { name: 'Revoke temporary' }).click();
    await admin.getByTestId('key-temporary').getByText('revoked').waitFor();

    await temporary.reload();
    await temporary.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
    expect(await temporary.getByLabel('API key').count()).toBe(1);
    expect(await temporary.evaluate('sessionStorage.length')).toBe(0);
  });

  it('draws Hangul with the bundled font fallback on a machine without a Korean font', async () => {
    const page = await signedIn(t.adminKey, { width: 800, height: 400 });
    await open(page, 'search');
    // Two Hangul texts of the same length in the console's own styles, as body text, code and a text
    // field (string scripts: the spec has no DOM types).
    await page.evaluate(`for (const tag of ['p', 'pre', 'textarea'])
      for (const [id, text] of [['a', '가나다라마바사'], ['b', '한국어로답변요']]) {
        const element = document.createElement(tag);
        element.id = 'hangul-' + tag + '-' + id;
        element[tag === 'textarea' ? 'value' : 'textContent'] = text;
        element.style.cssText = 'font-size:32px;display:inline-block;margin:4px;width:260px;height:60px;';
        document.getElementById('page').prepend(element);
      }`);
    const faces = await page.evaluate<number>(
      `document.fonts.load('32px "Noto Sans KR"', '가나다라마바사한국어로답변요').then((f) => f.length)`,
    );
    expect(faces).toBeGreaterThan(0);
    await page.evaluate('document.fonts.ready.then(() => true)');
    expect(await page.evaluate(`document.fonts.check('32px "Noto Sans KR"', '가나다라마바사')`)).toBe(true);
    // Empty boxes (tofu) draw every syllable the same: two different texts would look alike.
    for (const tag of ['p', 'pre', 'textarea']) {
      const a = await page.locator(`#hangul-${tag}-a`).screenshot();
      const b = await page.locator(`#hangul-${tag}-b`).screenshot();
      expect({ tag, same: a.equals(b) }).toEqual({ tag, same: false });
    }
    await shot(page, '12-hangul-page');
  });

  it('reads at phone width', async () => {
    const phone = await signedIn(t.adminKey, { width: 390, height: 844 });
    await open(phone, 'search');
    const overflow = await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(phone, '11-phone-search');
  });
});
