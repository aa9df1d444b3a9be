import { AppException, AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentsModule } from '@app/documents';
import { JobsRepository } from '@app/documents/testing';
import { DataSource } from 'typeorm';
import {
  EmbeddingsServer,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

/**
 * One tenant's uploads cannot starve another's ingestion: the claim serves tenants round-robin, a
 * tenant holding its running cap gets no further worker slot, and a tenant's queued uploads are
 * capped in jobs and bytes (429).
 */
describe(`document ingestion queue fairness (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let ingestion: DocumentIngestionService;
  let jobs: JobsRepository;
  const tenant = async (slug: string) =>
    (await ctx.get(AuthService).createTenant(`fair-${slug}`, slug, undefined)).tenant.id;
  /** `count` new documents of the tenant; returns their ids in upload order. */
  const upload = async (tenantId: string, count: number, bytes = 40) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const filename = `doc-${i}-${Math.random().toString(36).slice(2, 8)}.md`;
      const content = `# ${filename}\n\n${'text '.repeat(Math.ceil(bytes / 5))}`.slice(0, bytes);
      ids.push((await ingestion.create(tenantId, { filename, content })).id);
    }
    return ids;
  };
  const finishAll = () =>
    ctx.get(DataSource).query(`UPDATE document_jobs SET status = 'done', finished_at = now(), locked_by = NULL
                               WHERE status IN ('queued', 'running')`);

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 32 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'fair-embed',
      EMBEDDINGS_DIMENSIONS: '32',
      DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT: '3',
      DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT: '2048',
    });
    ingestion = ctx.get(DocumentIngestionService);
    jobs = ctx.get(JobsRepository);
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });
  afterEach(() => finishAll());

  it('gives no second slot to a tenant at its running cap while another tenant waits', async () => {
    const a = await tenant('a');
    const b = await tenant('b');
    await upload(a, 3);
    const [bDocument] = await upload(b, 1);
    expect((await jobs.claim('w1', 60, 1))?.tenantId).toBe(a);
    expect((await jobs.claim('w2', 60, 1))?.documentId).toBe(bDocument);
    expect(await jobs.claim('w3', 60, 1)).toBeNull();
  });

  it('serves tenants round-robin: a later tenant’s job before the first tenant’s remaining ones', async () => {
    const c = await tenant('c');
    const d = await tenant('d');
    const cDocuments = await upload(c, 3);
    const first = await jobs.claim('w1', 60, 0);
    expect(first?.documentId).toBe(cDocuments[0]);
    await ctx.get(DataSource).transaction((em) => jobs.finish(em, first!.id, 'w1', 'done'));
    const [dDocument] = await upload(d, 1);
    expect((await jobs.claim('w1', 60, 0))?.documentId).toBe(dDocument);
    expect((await jobs.claim('w1', 60, 0))?.documentId).toBe(cDocuments[1]);
  });

  it('refuses an upload past the tenant’s queued jobs or bytes with 429 details, and takes it once some are done', async () => {
    const e = await tenant('e');
    await upload(e, 3);
    const refused = await upload(e, 1).catch((error: AppException) => error);
    expect(refused).toMatchObject({
      code: 'DOCUMENTS_QUEUE_FULL',
      kind: 'RATE_LIMITED',
      details: {
        limit: { key: 'DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT', limit: 3, observed: 4 },
        retry_after_seconds: 30,
      },
    });
    // Refused whole: no document without its job.
    expect((await ingestion.list(e)).total).toBe(3);
    const f = await tenant('f');
    await upload(f, 1, 1500);
    await expect(upload(f, 1, 1000)).rejects.toMatchObject({
      code: 'DOCUMENTS_QUEUE_FULL',
      details: { limit: { key: 'DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT', limit: 2048, observed: 2500 } },
    });
    await finishAll();
    await expect(upload(e, 1)).resolves.toHaveLength(1);
  });

  it('leaves a code file’s chunk jobs to the diff queue’s caps: they neither count nor are refused', async () => {
    const g = await tenant('g');
    for (let i = 0; i < 5; i++)
      await ingestion.create(g, {
        filename: `code-${i}.txt`,
        content: `export const x${i} = ${i};`,
        metadata: { source: 'code' },
      });
    await expect(upload(g, 3)).resolves.toHaveLength(3);
  });
});
