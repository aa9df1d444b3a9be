import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { DataSource } from 'typeorm';
import { AuthService, runAsSystem } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import { BulkSegmentsRepository } from '@app/documents/testing';
import { startTestContext, TestContext, testBackend } from '@test/support';

const WORDS = [
  'replica',
  'failover',
  'latency',
  'budget',
  'runbook',
  'ingress',
  'certificate',
  'backup',
  'consumer',
  'eviction',
  '점검',
  '배포',
];

/** A document of `chunks` sections, each its own chunk, with words varying by document and section. */
const document = (d: number, chunks: number) =>
  Array.from({ length: chunks }, (_, s) => {
    const words = Array.from({ length: 16 }, (_, i) => WORDS[(d * 5 + s * 7 + i * 3) % WORDS.length]);
    return `## Section ${d}.${s}\n\n${words.join(' ')} note ${d}-${s} for shard ${s % 13}.`;
  }).join('\n\n');

const native = testBackend() === 'native';

/**
 * The bulk path (native only: the embedded database keeps the normal path) leaves a tenant that
 * searches as fast as one loaded document by document: its vector search is served by the model's
 * bounded HNSW index, not by an exact scan of the tenant's vectors. A bulk load grows the tables by
 * orders of magnitude in minutes; with the pre-load statistics (or none: autovacuum may not have run,
 * and does not run at all where it is off) the planner estimates the tenant at one row and scans all of
 * its vectors exactly (BENCHMARKS.md "Bulk ingestion": 174 ms at 10k chunks against 19 ms at 100k).
 */
(native ? describe : describe.skip)(`bulk ingestion (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;

  beforeAll(async () => {
    ctx = await startTestContext([DocumentsModule], {
      DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0',
      DOCUMENTS_CHUNK_TARGET_CHARS: '200',
      DOCUMENTS_CHUNK_OVERLAP_CHARS: '0',
    });
    db = ctx.get(DataSource);
  });
  afterAll(() => ctx?.close());

  const keywordIndex = async () =>
    (
      await runAsSystem('test', () =>
        db.query<Array<{ options: string[] | null }>>(
          `SELECT reloptions AS options FROM pg_class WHERE relname = 'IDX_document_chunks_search_vector'`,
        ),
      )
    )[0].options ?? [];

  it('loads keyword entries through a pending list, then leaves the tables analyzed and the vector search on the bulk-built index', async () => {
    const ingestion = ctx.get(DocumentIngestionService);
    const tenant = (await ctx.get(AuthService).createTenant('bulk-plan', 'B', undefined)).tenant.id;
    for (let d = 0; d < 6; d++)
      await ingestion.create(tenant, { filename: `bulk-${d}.md`, content: document(d, 500) });
    await ingestion.markQueuedBulk(tenant);
    await ingestion.processQueue({ maxJobs: 1, concurrency: 1 });
    // While the segment loads, keyword entries go through a small pending list (one merge per list).
    expect(await keywordIndex()).toEqual(expect.arrayContaining(['fastupdate=on']));
    await ingestion.processQueue();
    await ingestion.completeBulkLoads();
    expect(await keywordIndex()).toEqual(['fastupdate=off']);
    const text = await ctx
      .get(DocumentSearchService)
      .search(tenant, { query: 'certificate eviction', search_type: 'text', top_k: 10 });
    expect(text.results).toHaveLength(10);

    const [{ chunks, bounded }]: Array<{ chunks: number; bounded: number }> = await runAsSystem('test', () =>
      db.query(
        `SELECT (SELECT count(*)::int FROM chunk_embeddings WHERE tenant_id = $1 AND segment > 0) AS chunks,
                (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'chunk_embeddings'
                   AND indexname LIKE 'IDX_chunk_emb_seg_%') AS bounded`,
        [tenant],
      ),
    );
    expect(chunks).toBeGreaterThanOrEqual(3000);
    expect(bounded).toBe(1);

    // The statement the search serves, captured as sent, then explained on a connection with its settings.
    const sent: Array<[string, unknown[]]> = [];
    const query = PostgresQueryRunner.prototype.query;
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query').mockImplementation(function (
      this: PostgresQueryRunner,
      ...args: Parameters<typeof query>
    ) {
      if (args[0].includes('vector_hits AS')) sent.push([args[0], args[1] ?? []]);
      return query.apply(this, args);
    });
    let found: number;
    try {
      const response = await ctx
        .get(DocumentSearchService)
        .search(tenant, { query: 'replica failover latency', search_type: 'vector', top_k: 10 });
      found = response.results.length;
    } finally {
      spy.mockRestore();
    }
    expect(found).toBe(10);
    expect(sent).toHaveLength(1);
    const [sql, params] = sent[0];
    const plan = await runAsSystem('test', () =>
      db.transaction(async (em) => {
        await em.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
        const rows: Array<{ 'QUERY PLAN': string }> = await em.query(`EXPLAIN ${sql}`, params);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      }),
    );
    // Before the fix: "IDX_chunk_embeddings_tenant_model", every vector of the tenant read and sorted.
    expect(plan.match(/Index Scan using "?(\w+)"? on chunk_embeddings/)?.[1]).toMatch(/^IDX_chunk_emb_seg_/);
  });

  it('leaves the keyword index as it is when its lock is not free (searches would queue behind the wait)', async () => {
    const segments = ctx.get(BulkSegmentsRepository);
    const reader = db.createQueryRunner();
    await reader.connect();
    await reader.startTransaction();
    try {
      // A transaction that read the table holds a lock on each of its indexes until it ends.
      await reader.query(`SELECT count(*) FROM document_chunks WHERE search_vector @@ 'pump'::tsquery`);
      expect(await segments.keywordIndexLoading(true)).toBe(false);
      expect(await keywordIndex()).toEqual(['fastupdate=off']);
    } finally {
      await reader.rollbackTransaction();
      await reader.release();
    }
    expect(await segments.keywordIndexLoading(true)).toBe(true);
    expect(await keywordIndex()).toEqual(expect.arrayContaining(['fastupdate=on']));
    expect(await segments.keywordIndexLoading(false)).toBe(true);
    expect(await keywordIndex()).toEqual(['fastupdate=off']);
  });
});
