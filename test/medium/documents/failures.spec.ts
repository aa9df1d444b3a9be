import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentMaintenanceService, DocumentsModule } from '@app/documents';
import {
  EmbeddingsServer,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

const DAY_MS = 86_400_000;

describe(`failed ingestion: visible, retryable, kept until looked at (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let ingestion: DocumentIngestionService;
  let maintenance: DocumentMaintenanceService;
  let db: DataSource;
  let tenantId: string;
  let otherTenantId: string;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 16 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'test-embed',
      EMBEDDINGS_DIMENSIONS: '16',
      EMBEDDINGS_MAX_RETRIES: '0',
      EMBEDDINGS_RETRY_BASE_MS: '10',
      DOCUMENTS_JOB_RETRY_BASE_SECONDS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '2',
    });
    ingestion = ctx.get(DocumentIngestionService);
    maintenance = ctx.get(DocumentMaintenanceService);
    db = ctx.get(DataSource);
    const auth = ctx.get(AuthService);
    tenantId = (await auth.createTenant('failures-test', 'Failures test', undefined)).tenant.id;
    otherTenantId = (await auth.createTenant('failures-other', 'Failures other', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  const jobsOf = (documentId: string) =>
    db.query<Array<{ status: string; resolution: string | null; has_content: boolean }>>(
      `SELECT status, resolution, content IS NOT NULL AS has_content FROM document_jobs
       WHERE document_id = $1 ORDER BY created_at`,
      [documentId],
    );

  async function failOne(filename: string, tenant = tenantId) {
    server.failWhenInputContains('outage', 500);
    const doc = await ingestion.create(tenant, {
      filename,
      content: `written during an outage: ${filename}`,
    });
    await ingestion.processQueue();
    server.failWhenInputContains(null);
    return doc;
  }

  it('shows a failed document with its error, lists its job in the dead letter, and retries it', async () => {
    const doc = await failOne('one.txt');
    const failed = await ingestion.get(tenantId, doc.id);
    expect(failed).toMatchObject({ status: 'failed', retry_count: 0 });
    expect(failed.error_details).toMatchObject({ code: 'EMBEDDINGS_FAILED', attempts: 2 });
    expect((await ingestion.list(tenantId, { status: 'failed' })).items.map((d) => d.id)).toContain(doc.id);

    const dead = await ingestion.deadLetter(tenantId);
    const entry = dead.items.find((j) => j.document_id === doc.id);
    expect(entry).toMatchObject({
      kind: 'ingest',
      filename: 'one.txt',
      attempts: 2,
      max_attempts: 2,
      exhausted_retries: true,
      retryable_by_api: true,
      resolution: null,
    });
    expect(entry?.error_details).toMatchObject({ code: 'EMBEDDINGS_FAILED' });

    const queued = await ingestion.retry(tenantId, doc.id);
    expect(queued).toMatchObject({ status: 'queued', retry_count: 1, error_details: null });
    await ingestion.processQueue();
    expect(await ingestion.get(tenantId, doc.id)).toMatchObject({ status: 'done', retry_count: 1 });
    expect((await ingestion.chunksOf(tenantId, doc.id)).total).toBeGreaterThan(0);
    expect(await jobsOf(doc.id)).toEqual([
      { status: 'failed', resolution: 'retried', has_content: false },
      { status: 'done', resolution: null, has_content: false },
    ]);
    expect((await ingestion.deadLetter(tenantId)).items.some((j) => j.document_id === doc.id)).toBe(false);
    const history = await ingestion.deadLetter(tenantId, { includeResolved: true });
    expect(history.items.find((j) => j.document_id === doc.id)).toMatchObject({ resolution: 'retried' });
  });

  it('refuses to retry a document that has not failed, or one of another tenant', async () => {
    const done = await ingestion.create(tenantId, { filename: 'fine.txt', content: 'nothing wrong here' });
    await ingestion.processQueue();
    await expect(ingestion.retry(tenantId, done.id)).rejects.toMatchObject({
      code: 'DOCUMENT_NOT_FAILED',
      kind: 'CONFLICT',
    });
    const foreign = await failOne('foreign.txt', otherTenantId);
    await expect(ingestion.retry(tenantId, foreign.id)).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
    expect((await ingestion.deadLetter(tenantId)).items.some((j) => j.document_id === foreign.id)).toBe(
      false,
    );
  });

  it("retries all of the tenant's failed documents at once, and only that tenant's", async () => {
    const a = await failOne('bulk-a.txt');
    const b = await failOne('bulk-b.txt');
    const foreign = await failOne('bulk-foreign.txt', otherTenantId);
    const outcome = await ingestion.retryAllFailed(tenantId);
    expect(outcome.retried).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(outcome.retried).not.toContain(foreign.id);
    expect(outcome.remaining).toBe(0);
    await ingestion.processQueue();
    expect((await ingestion.get(tenantId, a.id)).status).toBe('done');
    expect((await ingestion.get(tenantId, b.id)).status).toBe('done');
    expect((await ingestion.get(otherTenantId, foreign.id)).status).toBe('failed');
  });

  it('skips, with the reason, a failure whose bytes were not kept', async () => {
    const doc = await failOne('lost.txt');
    await db.query(`UPDATE document_jobs SET content = NULL WHERE document_id = $1`, [doc.id]);
    await expect(ingestion.retry(tenantId, doc.id)).rejects.toMatchObject({
      code: 'DOCUMENT_CONTENT_UNAVAILABLE',
    });
    const outcome = await ingestion.retryAllFailed(tenantId);
    expect(outcome.skipped).toContainEqual(
      expect.objectContaining({ document_id: doc.id, code: 'DOCUMENT_CONTENT_UNAVAILABLE' }),
    );
    expect((await ingestion.deadLetter(tenantId)).items.find((j) => j.document_id === doc.id)).toMatchObject({
      retryable_by_api: false,
    });
  });

  it('the daily cleanup keeps an unexamined failure (document status, error and job), and removes it once dismissed', async () => {
    const doc = await failOne('evidence.txt');
    const later = new Date(Date.now() + 400 * DAY_MS);
    await maintenance.cleanup(later);
    const kept = await ingestion.get(tenantId, doc.id);
    expect(kept.status).toBe('failed');
    expect(kept.error_details).toMatchObject({ code: 'EMBEDDINGS_FAILED' });
    expect(await jobsOf(doc.id)).toEqual([{ status: 'failed', resolution: null, has_content: true }]);

    const [entry] = (await ingestion.deadLetter(tenantId)).items.filter((j) => j.document_id === doc.id);
    await expect(ingestion.dismissDeadLetter(otherTenantId, entry.job_id)).rejects.toMatchObject({
      code: 'DOCUMENT_JOB_NOT_FOUND',
    });
    await ingestion.dismissDeadLetter(tenantId, entry.job_id);
    expect((await ingestion.deadLetter(tenantId)).items.some((j) => j.document_id === doc.id)).toBe(false);
    await maintenance.cleanup(later);
    expect(await jobsOf(doc.id)).toEqual([]);
    // The document itself still says what happened.
    expect((await ingestion.get(tenantId, doc.id)).error_details).toMatchObject({
      code: 'EMBEDDINGS_FAILED',
    });
  });

  it('new content for a failed document resolves its failure as replaced', async () => {
    const doc = await failOne('replaced.txt');
    await ingestion.update(tenantId, doc.id, { filename: 'replaced.txt', content: 'healthy new content' });
    await ingestion.processQueue();
    expect((await ingestion.get(tenantId, doc.id)).status).toBe('done');
    expect((await jobsOf(doc.id))[0]).toEqual({
      status: 'failed',
      resolution: 'replaced',
      has_content: false,
    });
  });
});
