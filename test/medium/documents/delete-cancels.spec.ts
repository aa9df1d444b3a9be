import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import {
  EmbeddingsServer,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`deleting a document (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let ingestion: DocumentIngestionService;
  let search: DocumentSearchService;
  let db: DataSource;
  let tenantId: string;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 32 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'test-embed',
      EMBEDDINGS_DIMENSIONS: '32',
      EMBEDDINGS_BATCH_SIZE: '2',
      DOCUMENTS_CHUNK_TARGET_CHARS: '300',
      DOCUMENTS_CHUNK_OVERLAP_CHARS: '0',
      DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0',
    });
    ingestion = ctx.get(DocumentIngestionService);
    search = ctx.get(DocumentSearchService);
    db = ctx.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('delete-test', 'Delete test', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  const count = async (sql: string, id: string) =>
    Number((await db.query<Array<{ count: string }>>(sql, [id]))[0].count);
  const chunkCount = (id: string) =>
    count(`SELECT count(*) AS count FROM document_chunks WHERE document_id = $1`, id);
  const embeddingCount = (id: string) =>
    count(
      `SELECT count(*) AS count FROM chunk_embeddings e JOIN document_chunks c ON c.id = e.chunk_id
       WHERE c.document_id = $1`,
      id,
    );

  it('cancels the running job: it stops, and no chunk of the document remains', async () => {
    const text = Array.from(
      { length: 30 },
      (_, i) => `Section ${i} ${'covers the storage rotation plan '.repeat(8)}`,
    ).join('\n\n');
    const doc = await ingestion.create(tenantId, { filename: 'long.txt', content: text });
    server.setDelay(150);
    const draining = ingestion.processQueue();
    while ((await chunkCount(doc.id)) === 0) await sleep(20);
    await ingestion.remove(tenantId, doc.id);
    const embeddedAtDelete = server.embeddedTexts();
    await draining;
    server.setDelay(0);

    const [job]: Array<{ status: string }> = await db.query(
      `SELECT status FROM document_jobs WHERE document_id = $1`,
      [doc.id],
    );
    expect(job.status).toBe('cancelled');
    expect(await chunkCount(doc.id)).toBe(0);
    expect(await embeddingCount(doc.id)).toBe(0);
    // At most the batch already in flight at the delete is embedded, never the rest of the document.
    expect(server.embeddedTexts() - embeddedAtDelete).toBeLessThanOrEqual(2);
    const view = await ingestion.get(tenantId, doc.id);
    expect(view.error_details).toMatchObject({ code: 'DOCUMENT_DELETED' });
  });

  it('cancels a queued job before it runs', async () => {
    const doc = await ingestion.create(tenantId, { filename: 'queued.txt', content: 'Queued and deleted.' });
    await ingestion.remove(tenantId, doc.id);
    await ingestion.processQueue();
    const [job]: Array<{ status: string }> = await db.query(
      `SELECT status FROM document_jobs WHERE document_id = $1`,
      [doc.id],
    );
    expect(job.status).toBe('cancelled');
    expect(await chunkCount(doc.id)).toBe(0);
  });

  it("drops a deleted document's vectors at once, and restores them with the document", async () => {
    const doc = await ingestion.create(tenantId, {
      filename: 'zebra.txt',
      content: 'Zebra stripes confuse the flies.\n\nZebra herds migrate across the plains.',
    });
    await ingestion.processQueue();
    const vectorHits = async () =>
      (
        await search.search(tenantId, { query: 'zebra stripes', search_type: 'vector', top_k: 20 })
      ).results.filter((r) => r.document_id === doc.id).length;
    expect(await vectorHits()).toBeGreaterThan(0);
    const chunks = await chunkCount(doc.id);
    expect(await embeddingCount(doc.id)).toBe(chunks);

    await ingestion.remove(tenantId, doc.id);
    expect(await embeddingCount(doc.id)).toBe(0);
    expect(await chunkCount(doc.id)).toBe(chunks);
    expect(await vectorHits()).toBe(0);

    await ingestion.restore(tenantId, doc.id);
    await ingestion.processQueue();
    expect(await embeddingCount(doc.id)).toBe(chunks);
    expect(await vectorHits()).toBeGreaterThan(0);
  });
});
