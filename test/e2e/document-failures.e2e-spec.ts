import {
  EmbeddingsServer,
  sleep,
  startEmbeddingsServer,
  startTestApp,
  TestApp,
  testBackend,
} from '@test/support';

async function waitForStatus(t: TestApp, id: string, key: string, statuses = ['done', 'failed']) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await t.request<Record<string, any>>('GET', `/api/documents/${id}`, { key });
    if (statuses.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`document ${id} stuck in ${JSON.stringify(res.body)}`);
    await sleep(100);
  }
}

describe(`failed documents over HTTP: retry and dead letter (${testBackend()})`, () => {
  let t: TestApp;
  let embeddings: EmbeddingsServer;
  let operator: string;
  let reader: string;
  let otherTenant: string;

  beforeAll(async () => {
    embeddings = await startEmbeddingsServer({ dimensions: 16 });
    t = await startTestApp({
      EMBEDDINGS_BASE_URL: embeddings.url,
      EMBEDDINGS_MODEL: 'failures-e2e',
      EMBEDDINGS_DIMENSIONS: '16',
      EMBEDDINGS_MAX_RETRIES: '0',
      EMBEDDINGS_RETRY_BASE_MS: '10',
      DOCUMENTS_JOB_RETRY_BASE_SECONDS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '2',
    });
    operator = (await t.request<any>('POST', '/api/keys', { body: { name: 'op', role: 'operator' } })).body
      .secret;
    reader = (await t.request<any>('POST', '/api/keys', { body: { name: 'rd', role: 'reader' } })).body
      .secret;
    otherTenant = (await t.request<any>('POST', '/api/tenants', { body: { slug: 'other-failures' } })).body
      .secret;
  });
  afterAll(async () => {
    await t?.close();
    await embeddings?.close();
  });

  const uploadDuringOutage = async (filename: string, key = operator) => {
    embeddings.failWhenInputContains('outage', 503);
    const res = await t.request<any>('POST', '/api/documents', {
      key,
      body: { filename, content: `Written during the outage: ${filename}.` },
    });
    expect(res.status).toBe(202);
    const failed = await waitForStatus(t, res.body.id, key);
    embeddings.failWhenInputContains(null);
    return failed;
  };

  it('lists the failure with its error, retries it one by one, and it leaves the dead letter', async () => {
    const failed = await uploadDuringOutage('one.md');
    expect(failed).toMatchObject({
      status: 'failed',
      retry_count: 0,
      error_details: { code: 'EMBEDDINGS_FAILED', attempts: 2 },
    });
    const list = await t.request<any>('GET', '/api/documents?status=failed', { key: reader });
    expect(list.body.items.map((d: { id: string }) => d.id)).toContain(failed.id);

    const dead = await t.request<any>('GET', '/api/documents/jobs/dead-letter', { key: reader });
    expect(dead.status).toBe(200);
    expect(dead.body.items).toContainEqual(
      expect.objectContaining({
        document_id: failed.id,
        filename: 'one.md',
        exhausted_retries: true,
        retryable_by_api: true,
        error_details: expect.objectContaining({ code: 'EMBEDDINGS_FAILED' }),
      }),
    );

    expect((await t.request('POST', `/api/documents/${failed.id}/retry`, { key: reader })).status).toBe(403);
    expect((await t.request('POST', `/api/documents/${failed.id}/retry`, { key: otherTenant })).status).toBe(
      404,
    );
    const retried = await t.request<any>('POST', `/api/documents/${failed.id}/retry`, { key: operator });
    expect(retried).toMatchObject({ status: 202, body: { status: 'queued', retry_count: 1 } });
    expect(await waitForStatus(t, failed.id, reader)).toMatchObject({ status: 'done', retry_count: 1 });

    const again = await t.request<any>('POST', `/api/documents/${failed.id}/retry`, { key: operator });
    expect(again).toMatchObject({
      status: 409,
      body: { error: 'DOCUMENT_NOT_FAILED', requestId: expect.any(String) },
    });
    const after = await t.request<any>('GET', '/api/documents/jobs/dead-letter', { key: reader });
    expect(after.body.items.some((j: { document_id: string }) => j.document_id === failed.id)).toBe(false);
  });

  it("retries all of the caller's failed documents with ?status=failed, and dismisses a dead-letter entry", async () => {
    const a = await uploadDuringOutage('bulk-a.md');
    const b = await uploadDuringOutage('bulk-b.md');
    const foreign = await uploadDuringOutage('foreign.md', otherTenant);

    expect((await t.request('POST', '/api/documents/retry', { key: operator })).status).toBe(400);
    expect((await t.request('POST', '/api/documents/retry?status=done', { key: operator })).status).toBe(400);
    const bulk = await t.request<any>('POST', '/api/documents/retry?status=failed', { key: operator });
    expect(bulk.status).toBe(200);
    expect(bulk.body.retried).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(bulk.body.retried).not.toContain(foreign.id);
    expect((await waitForStatus(t, a.id, reader)).status).toBe('done');
    expect((await waitForStatus(t, b.id, reader)).status).toBe('done');
    expect(
      (await t.request<any>('GET', `/api/documents/${foreign.id}`, { key: otherTenant })).body.status,
    ).toBe('failed');

    const foreignDead = await t.request<any>('GET', '/api/documents/jobs/dead-letter', { key: otherTenant });
    const [entry] = foreignDead.body.items;
    expect(entry).toMatchObject({ document_id: foreign.id });
    expect(
      (await t.request('POST', `/api/documents/jobs/${entry.job_id}/dismiss`, { key: operator })).status,
    ).toBe(404);
    const dismissed = await t.request<any>('POST', `/api/documents/jobs/${entry.job_id}/dismiss`, {
      key: otherTenant,
    });
    expect(dismissed).toMatchObject({ status: 200, body: { resolution: 'dismissed' } });
    const history = await t.request<any>('GET', '/api/documents/jobs/dead-letter?include_resolved=true', {
      key: otherTenant,
    });
    expect(history.body.items).toContainEqual(
      expect.objectContaining({ job_id: entry.job_id, resolution: 'dismissed' }),
    );
    expect(
      (await t.request<any>('GET', '/api/documents/jobs/dead-letter', { key: otherTenant })).body.total,
    ).toBe(0);
  });
});
