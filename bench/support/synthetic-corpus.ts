import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { DocumentIngestionService, EmbeddingProviders } from '@app/documents';
import { loadDataset } from '../retrieval/datasets';

/** Deterministic PRNG (mulberry32) so every run seeds the same corpus. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Real English and Korean sentences (SciFact, KorQuAD) so vocabulary and term statistics are natural. */
export function sentencePool(): { sentences: string[]; queries: string[] } {
  const scifact = loadDataset('scifact');
  const korquad = loadDataset('korquad');
  const sentences: string[] = [];
  for (const passage of [...scifact.passages, ...korquad.passages]) {
    for (const s of passage.text.split(/(?<=[.!?다])\s+/)) if (s.length > 30) sentences.push(s);
  }
  const queries = [
    ...scifact.report.slice(0, 150).map((q) => q.text),
    ...korquad.report.slice(0, 150).map((q) => q.text),
  ];
  return { sentences, queries };
}

/** Chunk texts of about 600-1,100 characters, mixing sentences of one language. */
export function syntheticChunks(count: number, sentences: string[], seed = 42): string[] {
  const next = random(seed);
  const chunks: string[] = [];
  while (chunks.length < count) {
    let text = '';
    const target = 600 + Math.floor(next() * 500);
    while (text.length < target) text += `${sentences[Math.floor(next() * sentences.length)]} `;
    chunks.push(text.trim());
  }
  return chunks;
}

const CHUNKS_PER_DOCUMENT = 25;
const BATCH = 500;

/**
 * Bulk fast path for large benchmark corpora: one real document goes through the ingestion service
 * (creates the tenant's corpus row and the model's HNSW index), then synthetic documents, chunks
 * (the same tsvector/length expressions as ChunksRepository.insertChunks) and vectors from the
 * configured embedder are inserted in batches; the HNSW index is rebuilt once at the end and the
 * BM25 statistics are recomputed from the searchable set like the migration's backfill.
 */
export async function seedSyntheticChunks(
  ds: DataSource,
  ingestion: DocumentIngestionService,
  providers: EmbeddingProviders,
  tenantId: string,
  texts: string[],
  toIndexText: (text: string) => string,
): Promise<{ seconds: number; embedSeconds: number }> {
  const started = performance.now();
  await ingestion.create(tenantId, { filename: 'seed.txt', content: texts[0] });
  await ingestion.processQueue();
  const provider = providers.configured;
  const [index]: Array<{ indexname: string; indexdef: string } | undefined> = await ds.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunk_embeddings' AND indexdef ILIKE '%hnsw%'`,
  );
  if (index) await asOwner(ds, (em) => em.query(`DROP INDEX "${index.indexname}"`));
  let embedSeconds = 0;
  // The real document above holds texts[0], so the tenant ends with exactly texts.length chunks.
  const rest = texts.slice(1);
  const documents = Math.ceil(rest.length / CHUNKS_PER_DOCUMENT);
  const docRows: Array<{ id: string }> = await ds.query(
    `INSERT INTO documents (tenant_id, user_id, filename, content_type, format, size, status, source_hash,
       active_version, total_chunks, processing_progress)
     SELECT $1, 'bench', 'synthetic-' || i || '.txt', 'text/plain', 'text', 0, 'done', repeat('0', 64), 1, $2, 100
     FROM generate_series(1, $3) AS i RETURNING id`,
    [tenantId, CHUNKS_PER_DOCUMENT, documents],
  );
  for (let start = 0; start < rest.length; start += BATCH) {
    const batch = rest.slice(start, start + BATCH);
    const ids: string[] = await ds
      .query(
        `INSERT INTO document_chunks (tenant_id, document_id, chunk_version, chunk_index, text, chunk_type,
           position_in_doc, source_hash, search_vector, search_length)
         SELECT $1, x.doc, 1, x.idx, x.body, 'text', x.idx, x.hash, v.tsv,
                (SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(v.tsv) u)
         FROM unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(doc, idx, body, hash, it, ord)
         CROSS JOIN LATERAL (SELECT to_tsvector('english', x.it) AS tsv) v
         ORDER BY x.ord RETURNING id`,
        [
          tenantId,
          batch.map((_, i) => docRows[Math.floor((start + i) / CHUNKS_PER_DOCUMENT)].id),
          batch.map((_, i) => (start + i) % CHUNKS_PER_DOCUMENT),
          batch,
          batch.map((t) => createHash('sha256').update(t).digest('hex')),
          batch.map(toIndexText),
        ],
      )
      .then((rows: Array<{ id: string }>) => rows.map((r) => r.id));
    const embedStarted = performance.now();
    const vectors = await provider.embed(batch);
    embedSeconds += (performance.now() - embedStarted) / 1000;
    await ds.query(
      `INSERT INTO chunk_embeddings (chunk_id, tenant_id, model, embedding)
       SELECT x.id, $1, $2, x.v::vector FROM unnest($3::uuid[], $4::text[]) AS x(id, v)`,
      [tenantId, provider.model, ids, vectors.map((v) => `[${v.join(',')}]`)],
    );
    if (start % 10_000 === 0) process.stderr.write(`  seeded ${start + batch.length}/${rest.length}\r`);
  }
  if (index) {
    // Building the HNSW index over a large corpus takes far longer than the app's statement timeout.
    // And an HNSW graph that does not fit in maintenance_work_mem (64 MB by default) is built on
    // disk, an order of magnitude slower: 100k 1,024-dim vectors need about 600 MB.
    await asOwner(ds, async (em) => {
      await em.query(`SET LOCAL statement_timeout = 0`);
      await em.query(`SET LOCAL maintenance_work_mem = '${process.env.BENCH_MAINTENANCE_WORK_MEM ?? '1GB'}'`);
      await em.query(index.indexdef);
    });
  }
  // Counting every term of the corpus groups about 10^8 rows at 1M chunks: more work_mem than the default
  // 4 MB keeps the aggregate in memory.
  const unbounded = async (sql: string, params: unknown[] = []) =>
    ds.transaction(async (em) => {
      await em.query(`SET LOCAL statement_timeout = 0`);
      await em.query(`SET LOCAL work_mem = '${process.env.BENCH_WORK_MEM ?? '1GB'}'`);
      await em.query(sql, params);
    });
  // Statistics first: with the tables' pre-seed statistics (a few rows) the term count below is planned as a
  // nested loop that scans the tenant's chunks once per document (over 25 minutes at 1M chunks; 52 s after).
  await asOwner(ds, async (em) => {
    for (const table of ['documents', 'document_chunks']) await em.query(`ANALYZE ${table}`);
  });
  await ds.query(`DELETE FROM document_term_stats WHERE tenant_id = $1`, [tenantId]);
  const searchable = `FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
    WHERE c.tenant_id = $1 AND d.deleted_at IS NULL`;
  await unbounded(
    `INSERT INTO document_term_stats (tenant_id, term, df)
     SELECT $1, u.lexeme, count(*) FROM (SELECT c.search_vector ${searchable}) s
     CROSS JOIN LATERAL unnest(s.search_vector) u GROUP BY u.lexeme`,
    [tenantId],
  );
  await unbounded(
    `UPDATE document_corpus SET chunk_count = s.n, total_length = s.total, generation = generation + 1
     FROM (SELECT count(*) AS n, coalesce(sum(c.search_length), 0) AS total ${searchable}) s
     WHERE tenant_id = $1`,
    [tenantId],
  );
  // Every table the seed wrote: with stale statistics on `documents` (one row per tenant) the
  // planner turns the vector branch into a brute-force nested loop instead of the HNSW scan.
  await asOwner(ds, async (em) => {
    for (const table of ['documents', 'document_chunks', 'chunk_embeddings', 'document_term_stats'])
      await em.query(`ANALYZE ${table}`);
  });
  return { seconds: (performance.now() - started) / 1000, embedSeconds };
}

/**
 * Runs `fn` in a transaction as the owner of the schema's tables: the bulk seed drops and rebuilds
 * the HNSW index and analyzes, which only the owner may do. The application role (ops_app, or the
 * role an embedded connection switches to) is not the owner; the session user is a superuser in the
 * bench setups (embedded PGlite, the native bench's postgres URL), so it may switch.
 */
async function asOwner(ds: DataSource, fn: (em: EntityManager) => Promise<unknown>): Promise<void> {
  await ds.transaction(async (em) => {
    const [{ owner }]: Array<{ owner: string }> = await em.query(
      `SELECT tableowner AS owner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'chunk_embeddings'`,
    );
    await em.query(`SET LOCAL ROLE "${owner.replace(/"/g, '""')}"`);
    await fn(em);
  });
}
