import { DataSource } from 'typeorm';
import { AuthService, DatabaseInfo, runInBackground } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import {
  EmbeddingsServer,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
} from '@test/support';

const BATCH = 4;
const embedded = testBackend() === 'embedded';

/** A markdown document of `n` sections, each one chunk, each with a word no other section has. */
const sections = (n: number, tag: string) =>
  Array.from(
    { length: n },
    (_, i) => `## Section ${i}\n\nBody ${i} of ${tag} mentions word${tag}${i} once.`,
  ).join('\n\n');

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The embedded database's one connection is handed out by priority (EmbeddedScheduler): a request's
 * statement goes before background statements queued ahead of it, and background work (ingestion)
 * that gives way many times still ends complete. The ordering is proven by the order statements
 * complete in (the connection runs one at a time), never by how long anything took.
 */
describe(`the embedded connection serves requests before background work (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let db: DataSource;
  let info: DatabaseInfo;
  let ingestion: DocumentIngestionService;
  let search: DocumentSearchService;
  let tenantId: string;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 32 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'priority-embed',
      EMBEDDINGS_DIMENSIONS: '32',
      EMBEDDINGS_BATCH_SIZE: String(BATCH),
      EMBEDDINGS_MAX_RETRIES: '0',
      DOCUMENTS_CHUNK_TARGET_CHARS: '200',
      DOCUMENTS_CHUNK_OVERLAP_CHARS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '1',
      DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0',
    });
    db = ctx.get(DataSource);
    info = ctx.get(DatabaseInfo);
    ingestion = ctx.get(DocumentIngestionService);
    search = ctx.get(DocumentSearchService);
    tenantId = (await ctx.get(AuthService).createTenant('priority', 'Priority', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  (embedded ? it : it.skip)(
    'a request statement issued while background work is queued completes before that background work',
    async () => {
      const order: string[] = [];
      const gate = deferred();
      const started = deferred();
      // Background work holds the connection (a transaction), and more background work queues behind it.
      const holder = runInBackground(() =>
        db.transaction(async (em) => {
          await em.query('SELECT 1');
          started.resolve();
          await gate.promise;
          await em.query('SELECT 2');
          order.push('background transaction');
        }),
      );
      await started.promise;
      const queued = [1, 2, 3].map((n) =>
        runInBackground(() => db.query('SELECT $1::int AS n', [n])).then(() => order.push(`background ${n}`)),
      );
      await settle();
      // Then a request's statement (foreground: the default), and a request's transaction.
      const request = db.query(`SELECT count(*) FROM tenants`).then(() => order.push('request statement'));
      await settle();
      const requestTx = db
        .transaction((em) => em.query('SELECT 3'))
        .then(() => order.push('request transaction'));
      await settle();
      expect(info.schedulerStats()).toMatchObject({ foregroundWaiting: 2, backgroundWaiting: 3 });
      gate.resolve();
      await Promise.all([holder, request, requestTx, ...queued]);
      expect(order).toEqual([
        'background transaction',
        'request statement',
        'request transaction',
        'background 1',
        'background 2',
        'background 3',
      ]);
    },
  );

  (embedded ? it : it.skip)(
    "ingestion writes in single statements: a request runs between a batch's chunk insert and its vector insert",
    async () => {
      const doc = await ingestion.create(tenantId, {
        filename: 'statements.md',
        content: sections(BATCH * 8, 'statements'),
      });
      let ingesting = true;
      let observed = 0;
      const ingest = runInBackground(() => ingestion.processQueue()).finally(() => (ingesting = false));
      // A request's view, over and over while the job runs: chunks of the version being written that
      // have no vector yet. In one transaction per batch (chunks and vectors together) a request never
      // sees any; written as single statements, a request queued while the chunk insert runs goes
      // before the vector insert.
      while (ingesting) {
        const [row]: Array<{ n: number }> = await db.query(
          `SELECT count(*)::int AS n FROM document_chunks c JOIN documents d ON d.id = c.document_id
           WHERE c.document_id = $1 AND c.chunk_version > d.active_version
             AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id)`,
          [doc.id],
        );
        if (row.n > 0) observed++;
      }
      await ingest;
      expect(observed).toBeGreaterThan(0);
      const view = await ingestion.get(tenantId, doc.id);
      expect({ status: view.status, chunks: view.total_chunks }).toEqual({
        status: 'done',
        chunks: BATCH * 8,
      });
      const [missing]: Array<{ n: number }> = await db.query(
        `SELECT count(*)::int AS n FROM document_chunks c
         WHERE c.document_id = $1 AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id)`,
        [doc.id],
      );
      expect(missing.n).toBe(0);
    },
    120_000,
  );

  (embedded ? it.skip : it)('native: no scheduler, the pool serves connections side by side', () => {
    expect(info.schedulerStats()).toBeNull();
  });

  it('an ingestion that gives way to searches many times ends complete: every chunk, one active version, exact statistics', async () => {
    const count = BATCH * 12 + 1;
    const doc = await ingestion.create(tenantId, {
      filename: 'yielding.md',
      content: sections(count, 'one'),
    });
    const before = info.schedulerStats();
    let searching = true;
    let searches = 0;
    const ingest = runInBackground(() => ingestion.processQueue()).finally(() => (searching = false));
    // Searches one after another for as long as the ingestion runs: each waits for the ingestion's
    // current transaction at most, and the ingestion's next one waits for it.
    while (searching) {
      await search.search(tenantId, { query: 'wordone3 mentions', search_type: 'hybrid', top_k: 3 });
      searches++;
    }
    await ingest;
    // Re-ingested with a change: version 2 replaces version 1 while searches go on.
    await ingestion.update(tenantId, doc.id, { filename: 'yielding.md', content: sections(count, 'two') });
    searching = true;
    const reingest = runInBackground(() => ingestion.processQueue()).finally(() => (searching = false));
    while (searching) {
      await search.search(tenantId, { query: 'wordtwo5', search_type: 'text', top_k: 3 });
      searches++;
    }
    await reingest;

    const view = await ingestion.get(tenantId, doc.id);
    expect({ status: view.status, chunks: view.total_chunks, error: view.error_details }).toEqual({
      status: 'done',
      chunks: count,
      error: null,
    });
    const versions: Array<{
      chunk_version: number;
      n: number;
      first: number;
      last: number;
      vectors: number;
    }> = await db.query(
      `SELECT c.chunk_version, count(*)::int AS n, min(c.chunk_index) AS first, max(c.chunk_index) AS last,
                count(e.chunk_id)::int AS vectors
         FROM document_chunks c LEFT JOIN chunk_embeddings e ON e.chunk_id = c.id
         WHERE c.document_id = $1 GROUP BY c.chunk_version`,
      [doc.id],
    );
    // One version left, the active one, with every chunk once and a vector for each.
    const [active]: Array<{ active_version: number }> = await db.query(
      'SELECT active_version FROM documents WHERE id = $1',
      [doc.id],
    );
    expect(versions).toEqual([
      { chunk_version: active.active_version, n: count, first: 0, last: count - 1, vectors: count },
    ]);
    // BM25 statistics equal a recount of the searchable chunks.
    const [drift]: Array<{ n: number }> = await db.query(
      `WITH live AS (
         SELECT u.lexeme, count(*)::int AS df FROM document_chunks c
         JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version AND d.deleted_at IS NULL
         CROSS JOIN LATERAL unnest(c.search_vector) u WHERE c.tenant_id = $1 GROUP BY u.lexeme)
       SELECT count(*)::int AS n FROM live FULL JOIN document_term_stats s ON s.tenant_id = $1 AND s.term = live.lexeme
       WHERE live.df IS DISTINCT FROM s.df`,
      [tenantId],
    );
    expect(drift.n).toBe(0);
    const text = await search.search(tenantId, { query: 'wordtwo7', search_type: 'text', top_k: 1 });
    expect(text.results[0]?.chunk_text).toContain('wordtwo7');
    expect(searches).toBeGreaterThan(0);
    if (embedded) {
      const after = info.schedulerStats()!;
      // The ingestion ran as background work and gave way to the searches between its transactions.
      expect(after.backgroundLeases - before!.backgroundLeases).toBeGreaterThan(2 * 13);
      expect(after.yields - before!.yields).toBeGreaterThan(5);
    }
  }, 400_000);
});
