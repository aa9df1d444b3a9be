import { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AuthService, JsonLogger, PlatformModule } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import {
  EmbeddingsServer,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

const BATCH = 4;

/** A markdown document of `n` sections, each one chunk, each with a word no other section has. */
const sections = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `## Section ${i}\n\nBody ${i} of ${tag} mentions word${tag}${i} once.`);

describe(`ingestion in batches, concurrently (${testBackend()})`, () => {
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
      EMBEDDINGS_MODEL: 'batch-embed',
      EMBEDDINGS_DIMENSIONS: '32',
      EMBEDDINGS_BATCH_SIZE: String(BATCH),
      EMBEDDINGS_MAX_RETRIES: '0',
      EMBEDDINGS_RETRY_BASE_MS: '10',
      DOCUMENTS_CHUNK_TARGET_CHARS: '200',
      DOCUMENTS_CHUNK_OVERLAP_CHARS: '0',
      DOCUMENTS_JOB_RETRY_BASE_SECONDS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '1',
    });
    ingestion = ctx.get(DocumentIngestionService);
    search = ctx.get(DocumentSearchService);
    db = ctx.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('batches', 'Batches', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  const vectorsByHash = async (documentId: string): Promise<Map<string, string>> => {
    const rows: Array<{ source_hash: string; embedding: string }> = await db.query(
      `SELECT c.source_hash, e.embedding::text AS embedding
       FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       JOIN chunk_embeddings e ON e.chunk_id = c.id
       WHERE c.document_id = $1`,
      [documentId],
    );
    return new Map(rows.map((r) => [r.source_hash, r.embedding]));
  };

  it('two documents of a model the database has never seen, ingested at once, both succeed', async () => {
    const docs = [];
    for (const tag of ['a', 'b', 'c']) {
      docs.push(
        await ingestion.create(tenantId, {
          filename: `first-${tag}.md`,
          content: sections(6, tag).join('\n\n'),
        }),
      );
    }
    // On the native server a second process races this one for the new model's HNSW index; the
    // embedded backend allows one process per data directory, so there two jobs of this one race.
    let other: INestApplicationContext | undefined;
    if (testBackend() === 'native') {
      const moduleRef = await Test.createTestingModule({
        imports: [PlatformModule.forRoot({ schedulers: false }), DocumentsModule],
      })
        .setLogger(new JsonLogger({ level: 'error', format: 'pretty', stream: process.stderr }))
        .compile();
      other = await moduleRef.init();
    }
    try {
      await Promise.all([
        ingestion.processQueue({ concurrency: 2 }),
        other?.get(DocumentIngestionService).processQueue({ concurrency: 2 }),
      ]);
    } finally {
      await other?.close();
    }
    for (const doc of docs) {
      const view = await ingestion.get(tenantId, doc.id);
      expect({ status: view.status, error: view.error_details, chunks: view.total_chunks }).toEqual({
        status: 'done',
        error: null,
        chunks: 6,
      });
    }
    const indexes: unknown[] = await db.query(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'chunk_embeddings' AND indexdef ILIKE '%batch-embed%'`,
    );
    expect(indexes).toHaveLength(1);
  });

  it('a document of many batches is searchable in every chunk, with BM25 statistics that match a recount', async () => {
    const count = BATCH * 5 + 3;
    const doc = await ingestion.create(tenantId, {
      filename: 'long.md',
      content: sections(count, 'long').join('\n\n'),
    });
    await ingestion.processQueue();
    const view = await ingestion.get(tenantId, doc.id);
    expect({ status: view.status, chunks: view.total_chunks, progress: view.processing_progress }).toEqual({
      status: 'done',
      chunks: count,
      progress: 100,
    });
    const chunks = (await ingestion.chunksOf(tenantId, doc.id, 1000)).items;
    expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((c) => c.embedding_models.includes('batch-embed'))).toBe(true);
    for (const i of [0, BATCH, count - 1]) {
      const text = await search.search(tenantId, { query: `wordlong${i}`, search_type: 'text', top_k: 1 });
      // The test embedder is a bag of words: the chunk's own text is its nearest vector.
      const vector = await search.search(tenantId, {
        query: chunks[i].text,
        search_type: 'vector',
        top_k: 1,
      });
      expect([text.results[0]?.chunk_id, vector.results[0]?.chunk_id]).toEqual([
        chunks[i].chunk_id,
        chunks[i].chunk_id,
      ]);
    }
    const [stats] = await db.query(
      `SELECT n.chunk_count, (SELECT df FROM document_term_stats WHERE tenant_id = $1 AND term = 'wordlong7') AS df,
              (SELECT count(*)::int FROM document_chunks c JOIN documents d ON d.id = c.document_id
                 AND c.chunk_version = d.active_version WHERE c.tenant_id = $1 AND d.deleted_at IS NULL) AS searchable
       FROM document_corpus n WHERE n.tenant_id = $1`,
      [tenantId],
    );
    expect(stats.chunk_count).toBe(stats.searchable);
    expect(stats.df).toBe(1);
  });

  it('a re-upload embeds only the changed chunks and keeps the vectors of the unchanged ones', async () => {
    const body = sections(BATCH * 3, 'edit');
    const doc = await ingestion.create(tenantId, { filename: 'edit.md', content: body.join('\n\n') });
    await ingestion.processQueue();
    const before = await vectorsByHash(doc.id);
    expect(before.size).toBe(BATCH * 3);

    const calls = server.embeddedTexts();
    body[1] = '## Section 1\n\nRewritten about failover.';
    body[BATCH * 2 + 1] = '## Section 9\n\nRewritten about backups.';
    await ingestion.update(tenantId, doc.id, { filename: 'edit.md', content: body.join('\n\n') });
    await ingestion.processQueue();
    expect(server.embeddedTexts() - calls).toBe(2);
    const after = await vectorsByHash(doc.id);
    expect(after.size).toBe(BATCH * 3);
    const kept = [...after].filter(([hash, vector]) => before.get(hash) === vector);
    expect(kept).toHaveLength(BATCH * 3 - 2);
    expect((await ingestion.get(tenantId, doc.id)).chunk_version).toBe(2);
  });

  it('a document whose embedding fails in a later batch is recorded as failed with its error, and nothing of it is searchable', async () => {
    const body = sections(BATCH * 4, 'poison');
    body[BATCH * 2] = '## Section 8\n\nthis one meets a broken embedder';
    server.failWhenInputContains('broken embedder', 400);
    const doc = await ingestion.create(tenantId, { filename: 'poison.md', content: body.join('\n\n') });
    const healthy = await ingestion.create(tenantId, {
      filename: 'healthy.md',
      content: sections(3, 'fine').join('\n\n'),
    });
    try {
      await ingestion.processQueue();
    } finally {
      server.failWhenInputContains(null);
    }
    const view = await ingestion.get(tenantId, doc.id);
    expect(view.status).toBe('failed');
    expect(view.chunk_version).toBe(0);
    expect(view.error_details).toMatchObject({ code: 'EMBEDDINGS_FAILED', attempts: 1 });
    expect((await ingestion.get(tenantId, healthy.id)).status).toBe('done');
    const response = await search.search(tenantId, { query: 'wordpoison0', search_type: 'text', top_k: 5 });
    expect(response.results).toEqual([]);
  });
});
