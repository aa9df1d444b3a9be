import {
  makePdf,
  sleep,
  startRedisServer,
  freePort,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';

async function waitForStatus(
  t: TestApp,
  id: string,
  key: string,
  statuses = ['done', 'failed'],
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.request('GET', `/api/documents/${id}`, { key });
    if (statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`document ${id} stuck in ${JSON.stringify(res.body)}`);
    await sleep(100);
  }
}

async function upload(
  t: TestApp,
  key: string,
  name: string,
  content: Buffer | string,
  type: string,
  route = '/api/documents',
  method = 'POST',
) {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), name);
  form.append('metadata', JSON.stringify({ source: 'upload' }));
  const response = await fetch(`${t.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe(`documents over HTTP (${testBackend()})`, () => {
  let t: TestApp;
  let operator: string;
  let reader: string;
  let otherTenant: string;

  beforeAll(async () => {
    t = await startTestApp({ DOCUMENTS_MAX_UPLOAD_BYTES: '50000' });
    operator = (await t.request('POST', '/api/keys', { body: { name: 'op', role: 'operator' } })).body.secret;
    reader = (await t.request('POST', '/api/keys', { body: { name: 'rd', role: 'reader' } })).body.secret;
    otherTenant = (await t.request('POST', '/api/tenants', { body: { slug: 'other' } })).body.secret;
  });
  afterAll(() => t.close());

  it('ingests JSON and multipart uploads, and serves status, chunks, list, update, delete and restore', async () => {
    const json = await t.request('POST', '/api/documents', {
      key: operator,
      body: {
        filename: 'deploy.md',
        content: '# Deploys\n\nDeploy on Tuesdays; roll back with the previous image tag.',
        metadata: { team: 'platform' },
      },
    });
    expect(json.status).toBe(202);
    expect(json.body).toMatchObject({
      status: 'queued',
      filename: 'deploy.md',
      format: 'markdown',
      doc_metadata: { team: 'platform' },
    });
    const pdf = await upload(
      t,
      operator,
      'report.pdf',
      await makePdf(['Backups run nightly.', 'Restores are tested monthly.']),
      'application/pdf',
    );
    expect(pdf.status).toBe(202);

    const done = await waitForStatus(t, json.body.id, reader);
    expect(done).toMatchObject({
      status: 'done',
      processing_progress: 100,
      total_chunks: 1,
      error_details: null,
      chunk_version: 1,
    });
    expect((await waitForStatus(t, pdf.body.id, reader)).status).toBe('done');
    const chunks = await t.request('GET', `/api/documents/${pdf.body.id}/chunks`, { key: reader });
    expect(chunks.body.items.map((c: { page_number: number }) => c.page_number)).toEqual([1, 2]);

    const list = await t.request(
      'GET',
      `/api/documents?status=done&type=markdown&metadata=${encodeURIComponent('{"team":"platform"}')}&limit=10`,
      { key: reader },
    );
    expect(list.body.items.map((d: { id: string }) => d.id)).toEqual([json.body.id]);

    const put = await t.request('PUT', `/api/documents/${json.body.id}`, {
      key: operator,
      body: { filename: 'deploy.md', content: '# Deploys\n\nDeploy on Thursdays only.' },
    });
    expect(put.body).toMatchObject({ queued: true, status: 'queued' });
    expect((await waitForStatus(t, json.body.id, reader)).chunk_version).toBe(2);
    const unchanged = await t.request('PUT', `/api/documents/${json.body.id}`, {
      key: operator,
      body: { filename: 'deploy.md', content: '# Deploys\n\nDeploy on Thursdays only.' },
    });
    expect(unchanged.body).toMatchObject({ queued: false, status: 'done' });

    expect(
      (await t.request('DELETE', `/api/documents/${json.body.id}`, { key: operator })).body.deleted_at,
    ).toEqual(expect.any(String));
    const hidden = await t.request('POST', '/api/documents/search', {
      key: reader,
      body: { query: 'deploy thursdays' },
    });
    expect(hidden.body.results.map((r: { document_id: string }) => r.document_id)).not.toContain(
      json.body.id,
    );
    expect(
      (await t.request('POST', `/api/documents/${json.body.id}/restore`, { key: operator })).body.deleted_at,
    ).toBeNull();
    const back = await t.request('POST', '/api/documents/search', {
      key: reader,
      body: { query: 'deploy thursdays', search_type: 'hybrid' },
    });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'ok', search_type: 'hybrid', query: 'deploy thursdays' });
    expect(back.body.results[0]).toMatchObject({
      document_id: json.body.id,
      document_name: 'deploy.md',
      chunk_type: 'text',
    });

    // Another tenant sees nothing of this one, cached or not.
    for (let i = 0; i < 2; i++) {
      const other = await t.request('POST', '/api/documents/search', {
        key: otherTenant,
        body: { query: 'deploy thursdays' },
      });
      expect(other.body.results).toEqual([]);
    }
    expect((await t.request('GET', `/api/documents/${json.body.id}`, { key: otherTenant })).status).toBe(404);
  });

  it('returns the stored document for a repeated upload of the same filename and content, and queues nothing', async () => {
    const body = { filename: 'twice.md', content: '# Twice\n\nPosted twice by a retrying client.' };
    const first = await t.request('POST', '/api/documents', { key: operator, body });
    expect(first.status).toBe(202);
    const again = await t.request('POST', '/api/documents', { key: operator, body });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, deduplicated: true });
    const changed = await t.request('POST', '/api/documents', {
      key: operator,
      body: { ...body, content: `${body.content} And changed.` },
    });
    expect(changed.status).toBe(202);
    expect(changed.body.id).not.toBe(first.body.id);
    const listed = await t.request('GET', '/api/documents?filename=twice.md', { key: operator });
    expect(listed.body.total).toBe(2);
  });

  it('answers bad input with clear 4xx errors and records unreadable files as failed', async () => {
    expect(
      (await t.request('POST', '/api/documents', { key: reader, body: { filename: 'a.txt', content: 'x' } }))
        .status,
    ).toBe(403);
    const unsupported = await upload(t, operator, 'photo.png', Buffer.from([0x89, 0x50]), 'image/png');
    expect(unsupported).toMatchObject({ status: 415, body: { error: 'UNSUPPORTED_DOCUMENT_TYPE' } });
    const rawText = await t.request('POST', '/api/documents', {
      key: operator,
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(rawText.status).toBe(415);
    const large = await upload(t, operator, 'big.txt', 'x'.repeat(60_000), 'text/plain');
    expect(large).toMatchObject({ status: 413, body: { error: 'DOCUMENT_TOO_LARGE' } });
    const largeJson = await t.request('POST', '/api/documents', {
      key: operator,
      body: { filename: 'big.txt', content: 'y'.repeat(60_000) },
    });
    expect(largeJson.status).toBe(413);
    expect(
      (await t.request('POST', '/api/documents', { key: operator, body: { content: 'no name' } })).status,
    ).toBe(400);

    const locked = await upload(
      t,
      operator,
      'locked.pdf',
      await makePdf(['secret'], { password: 'pw' }),
      'application/pdf',
    );
    expect(locked.status).toBe(202);
    const failed = await waitForStatus(t, locked.body.id, reader);
    expect(failed).toMatchObject({
      status: 'failed',
      error_details: { code: 'DOCUMENT_ENCRYPTED', retryable: false },
    });

    const searches = [
      { query: 'a' },
      { query: 'q'.repeat(3000) },
      { query: 'fine', top_k: 101 },
      { query: 'fine', filters: { colour: 'red' } },
      { query: 'fine', search_type: 'fuzzy' },
    ];
    for (const body of searches) {
      const res = await t.request('POST', '/api/documents/search', { key: reader, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
  });
});

describe(`document search with the cache stopped (${testBackend()})`, () => {
  it('still answers, from the database', async () => {
    const port = await freePort();
    const redis = await startRedisServer(port);
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: '200' });
    try {
      const created = await t.request('POST', '/api/documents', {
        body: { filename: 'cache.md', content: '# Cache outage\n\nSearch keeps working without Redis.' },
      });
      await waitForStatus(t, created.body.id, t.adminKey);
      const warm = await t.request('POST', '/api/documents/search', { body: { query: 'cache outage' } });
      expect(warm.body.results[0].document_id).toBe(created.body.id);
      redis.kill('SIGKILL');
      await sleep(300);
      for (const query of ['cache outage', 'works without redis']) {
        const res = await t.request('POST', '/api/documents/search', { body: { query } });
        expect(res.status).toBe(200);
        expect(res.body.results[0].document_id).toBe(created.body.id);
        expect(res.body.cached).toBe(false);
      }
    } finally {
      redis.kill('SIGKILL');
      await t.close();
    }
  });
});
