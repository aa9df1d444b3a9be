import { Client } from 'pg';
import { testBackend, useCrashServer } from '@test/support';

const documents = [
  {
    filename: 'failover.md',
    content: Array.from(
      { length: 60 },
      (_, i) =>
        `## Step ${i}\n\nCheck replica ${i} lag, then confirm the failover target for shard ${i} is healthy.`,
    ).join('\n\n'),
  },
  ...['alpha', 'beta', 'gamma'].map((name) => ({
    filename: `${name}.md`,
    content: `# ${name}\n\nRunbook ${name} restarts the ${name} service.`,
  })),
];

/**
 * The queue's bulk path (a tenant queue at DOCUMENTS_BULK_MIN_QUEUED_JOBS) killed with SIGKILL while
 * it loads: after a restart every document ends `done` with the chunks of a clean run, searchable,
 * and no index is left INVALID. On the embedded database the queue keeps the normal path (one
 * connection: an index build would stop every search), which the same test checks ends the same.
 */
describe(`bulk ingestion killed with SIGKILL mid-load (${testBackend()})`, () => {
  const server = useCrashServer({
    EMBEDDINGS_MODEL: 'bulk-crash-test',
    DOCUMENTS_BULK_MIN_QUEUED_JOBS: '3',
  });
  const { adminKey, call } = server;

  const chunkTexts = async (base: string, key: string, id: string) =>
    (await call(base, key, 'GET', `/api/documents/${id}/chunks?limit=1000`)).body.items.map(
      (c: { chunk_index: number; text: string; source_hash: string }) => [
        c.chunk_index,
        c.text,
        c.source_hash,
      ],
    );

  const owner = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    // The superuser of the test server: sees every tenant's jobs and the catalog.
    const url = new URL(server.database.env.DATABASE_MIGRATION_URL);
    url.username = 'postgres';
    url.password = '';
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  it('loses nothing, leaves no INVALID index, and publishes the documents once indexed', async () => {
    let { running, base } = await server.start();
    const ids: string[] = [];
    for (const doc of documents)
      ids.push((await call(base, adminKey, 'POST', '/api/documents', doc)).body.id);

    await server.killMidDocument(running, base, adminKey, ids[0]);

    ({ running, base } = await server.start());
    const docs = await server.waitAllDone(base, adminKey, ids, 120_000);

    const clean = (await call(base, adminKey, 'POST', '/api/tenants', { slug: 'clean-run' })).body
      .secret as string;
    const cleanIds: string[] = [];
    for (const doc of documents)
      cleanIds.push((await call(base, clean, 'POST', '/api/documents', doc)).body.id);
    await server.waitAllDone(base, clean, cleanIds, 120_000);
    for (let i = 0; i < ids.length; i++) {
      const crashed = await chunkTexts(base, adminKey, ids[i]);
      expect(crashed).toEqual(await chunkTexts(base, clean, cleanIds[i]));
      expect(docs[i].total_chunks).toBe(crashed.length);
    }
    expect(docs[0].total_chunks).toBeGreaterThan(20);

    const search = await call(base, adminKey, 'POST', '/api/documents/search', {
      query: 'confirm the failover target for shard 17',
      search_type: 'vector',
      top_k: 5,
    });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.body)).toContain(ids[0]);

    if (testBackend() === 'native') {
      await owner(async (client) => {
        const invalid = await client.query(
          `SELECT i.indexrelid::regclass::text AS name FROM pg_index i
           WHERE i.indrelid = 'chunk_embeddings'::regclass AND NOT (i.indisvalid AND i.indisready)`,
        );
        expect(invalid.rows).toEqual([]);
        const segments = await client.query(
          `SELECT serving_bound, loading_segment FROM chunk_embedding_segments`,
        );
        // Both tenants' loads went through the bulk path, each sealed with one build.
        expect(segments.rows).toHaveLength(1);
        expect(segments.rows[0].loading_segment).toBeNull();
        expect(segments.rows[0].serving_bound).toBeGreaterThanOrEqual(2);
        // A few dozen rows: without this the planner prefers a scan; the point is that the bound matches.
        // The search's expression: native indexes are half precision (HalfvecEmbeddingIndexes migration).
        await client.query(`SET enable_seqscan = off`);
        const plan = await client.query(
          `EXPLAIN SELECT chunk_id FROM chunk_embeddings e
           WHERE e.model = 'bulk-crash-test' AND e.segment < ${segments.rows[0].serving_bound}
           ORDER BY (e.embedding::halfvec(32)) <=> '[${Array.from({ length: 32 }, (_, i) => (i % 3) / 3).join(',')}]'::vector(32)::halfvec(32) LIMIT 5`,
        );
        expect(JSON.stringify(plan.rows)).toContain('IDX_chunk_emb_seg_');
        const jobs = await client.query(
          `SELECT count(*)::int AS n FROM document_jobs WHERE bulk AND status NOT IN ('done', 'superseded')`,
        );
        expect(jobs.rows[0].n).toBe(0);
      });
    }

    await server.stop();
  }, 300_000);
});
