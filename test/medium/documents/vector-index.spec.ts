import { DataSource } from 'typeorm';
import { AuthService, runAsSystem, runAsTenant } from '@app/platform';
import {
  DocumentIngestionService,
  DocumentSearchService,
  DocumentsModule,
  EmbeddingProviders,
} from '@app/documents';
import { HNSW_EF_CONSTRUCTION, HNSW_M, halfvecIndexesDown, halfvecIndexesUp } from '@app/migrations';
import { queryAsOwner, startTestContext, TestContext, testBackend } from '@test/support';

const TOPICS = [
  'payment gateway restart drains traffic before rolling pods',
  'nightly postgres backups land in object storage and are verified',
  'the on-call engineer acknowledges pages within five minutes',
  'certificate rotation renews TLS keys for every ingress',
  'kafka consumer lag alerts page the data platform team',
  'disk pressure on build agents triggers cache eviction',
  '연차 휴가는 포털에서 신청하고 팀장의 승인을 받습니다',
  '배포는 화요일과 목요일에만 진행하며 롤백 계획을 작성합니다',
  '서버 접근 권한은 분기마다 검토하고 불필요한 계정을 삭제합니다',
  '장애 보고서는 사흘 안에 작성하여 공유합니다',
];
const FILLER = [
  'latency',
  'budget',
  'runbook',
  'owner',
  'quarter',
  'region',
  'replica',
  'ticket',
  '점검',
  '일정',
];

/** Sections mixing topics and filler words, so vectors differ by degree, not only by topic. */
function corpus(documents: number, sections: number): Record<string, string> {
  const docs: Record<string, string> = {};
  for (let d = 0; d < documents; d++) {
    const parts: string[] = [];
    for (let s = 0; s < sections; s++) {
      const a = TOPICS[(d * 7 + s * 3) % TOPICS.length];
      const b = TOPICS[(d + s * 5 + 1) % TOPICS.length];
      const words = Array.from(
        { length: 1 + ((d + s) % 5) },
        (_, i) => FILLER[(d * 3 + s + i) % FILLER.length],
      );
      parts.push(`## Section ${d}.${s}\n\n${a}. ${words.join(' ')} ${d}-${s}. ${b}.`);
    }
    docs[`doc-${d}.md`] = parts.join('\n\n');
  }
  return docs;
}

const QUERIES = [
  'restart the payment gateway',
  'verify postgres backups',
  'kafka lag alert',
  'TLS certificate rotation',
  '휴가 신청 승인',
  '배포 롤백 계획',
];

const INDEXES = `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunk_embeddings' AND indexdef ILIKE '%hnsw%' ORDER BY indexname`;

// Native PostgreSQL indexes in half precision; PGlite keeps float4 (the HalfvecEmbeddingIndexes migration).
const native = testBackend() === 'native';
const storage = native ? 'halfvec' : 'vector';
const nativeOnly = native ? it : it.skip;

describe(`vector index: ${storage} storage, re-ranked by float4 (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;
  let search: DocumentSearchService;
  let tenant: string;
  let exactTop: (query: string, k: number) => Promise<Array<{ chunkId: string; similarity: number }>>;

  beforeAll(async () => {
    ctx = await startTestContext([DocumentsModule], { DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0' });
    db = ctx.get(DataSource);
    search = ctx.get(DocumentSearchService);
    const ingestion = ctx.get(DocumentIngestionService);
    tenant = (await ctx.get(AuthService).createTenant('vector-index', 'V', undefined)).tenant.id;
    for (const [filename, content] of Object.entries(corpus(30, 4)))
      await ingestion.create(tenant, { filename, content });
    await ingestion.processQueue();
    const provider = ctx.get(EmbeddingProviders).configured;
    // Exact search in the test process: cosine over every stored float4 vector of the tenant.
    const rows: Array<{ chunk_id: string; embedding: string }> = await runAsTenant(tenant, () =>
      db.query(`SELECT chunk_id, embedding::text AS embedding FROM chunk_embeddings WHERE model = $1`, [
        provider.model,
      ]),
    );
    const stored = rows.map((r) => ({ chunkId: r.chunk_id, vector: JSON.parse(r.embedding) as number[] }));
    exactTop = async (query, k) => {
      const [q] = await provider.embed([query]);
      const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      return stored
        .map(({ chunkId, vector }) => ({
          chunkId,
          similarity: vector.reduce((s, x, i) => s + x * q[i], 0) / (norm(vector) * norm(q)),
        }))
        .sort((a, b) => b.similarity - a.similarity || (a.chunkId < b.chunkId ? -1 : 1))
        .slice(0, k);
    };
  });
  afterAll(() => ctx?.close());

  const served = async (query: string, k: number) =>
    (await search.search(tenant, { query, search_type: 'vector', top_k: k })).results.map((r) => ({
      chunkId: r.chunk_id,
      similarity: r.branches.vector!.score,
    }));

  it("indexes every model with the backend's storage, and the search reads that index", async () => {
    const indexes: Array<{ indexname: string; indexdef: string }> = await runAsSystem('test', () =>
      db.query(INDEXES),
    );
    expect(indexes).toHaveLength(1);
    expect(indexes[0].indexdef).toContain(`((embedding)::${storage}(1024)) ${storage}_cosine_ops`);
    if (native) {
      expect(indexes[0].indexdef).toContain(`m='${HNSW_M}'`);
      expect(indexes[0].indexdef).toContain(`ef_construction='${HNSW_EF_CONSTRUCTION}'`);
    }
    // The vector branch's ORDER BY (SearchRepository's vectorBranchSql) is the index's expression.
    const plan: Array<Record<string, string>> = await runAsTenant(tenant, () =>
      db.transaction(async (em) => {
        await em.query(`SET LOCAL enable_seqscan = off`);
        const [q] = await ctx.get(EmbeddingProviders).configured.embed(['restart the payment gateway']);
        return em.query(
          `EXPLAIN SELECT e.chunk_id FROM chunk_embeddings e WHERE e.model = 'hash-v1-1024' AND e.tenant_id = $1
           ORDER BY (e.embedding::${storage}(1024)) <=> $2::vector(1024)::${storage}(1024) LIMIT 10`,
          [tenant, `[${q.join(',')}]`],
        );
      }),
    );
    expect(plan.map((row) => Object.values(row)[0]).join('\n')).toContain(
      `Index Scan using "${indexes[0].indexname}"`,
    );
  });

  it('returns the exact top hits, with the exact float4 cosine as the score', async () => {
    for (const query of QUERIES) {
      const exact = await exactTop(query, 10);
      const got = await served(query, 10);
      expect(got.map((r) => r.chunkId)).toEqual(exact.map((r) => r.chunkId));
      // Re-ranked by the stored float4 vectors: a half-precision distance would be off by ~3e-5.
      got.forEach((r, i) => expect(r.similarity).toBeCloseTo(exact[i].similarity, 5));
    }
  });

  nativeOnly(
    'the migration rebuilds existing float4 indexes in half precision and keeps every vector searchable',
    async () => {
      const before = await Promise.all(QUERIES.map((q) => served(q, 10)));
      const count = async () =>
        (await runAsTenant(tenant, () => db.query(`SELECT count(*)::int AS n FROM chunk_embeddings`)))[0]
          .n as number;
      const vectors = await count();
      for (const sql of halfvecIndexesDown()) await queryAsOwner(ctx.database, db, sql);
      const old: Array<{ indexname: string; indexdef: string }> = await runAsSystem('test', () =>
        db.query(INDEXES),
      );
      expect(old).toHaveLength(1);
      expect(old[0].indexdef).toContain('((embedding)::vector(1024)) vector_cosine_ops');
      for (const sql of halfvecIndexesUp()) await queryAsOwner(ctx.database, db, sql);
      const rebuilt: Array<{ indexname: string; indexdef: string }> = await runAsSystem('test', () =>
        db.query(INDEXES),
      );
      expect(rebuilt.map((i) => i.indexname)).toEqual(old.map((i) => i.indexname));
      expect(rebuilt[0].indexdef).toContain('halfvec_cosine_ops');
      expect(await count()).toBe(vectors);
      const after = await Promise.all(QUERIES.map((q) => served(q, 10)));
      expect(after.map((hits) => hits.map((h) => h.chunkId))).toEqual(
        before.map((hits) => hits.map((h) => h.chunkId)),
      );
    },
  );

  nativeOnly(
    'a bulk load builds its bounded index in half precision too, and the migration rebuilds it',
    async () => {
      const settings = ['64MB', 0];
      const [unbounded] = await runAsSystem('test', () => db.query<Array<{ indexname: string }>>(INDEXES));
      const [{ segment }]: Array<{ segment: number }> = await runAsSystem('test', () =>
        db.query(`SELECT ops_bulk_open_segment($1, 'hash-v1-1024', 1024, $2, $3) AS segment`, [
          unbounded.indexname,
          ...settings,
        ]),
      );
      expect(segment).toBe(1);
      const [{ sealed }]: Array<{ sealed: boolean }> = await runAsSystem('test', () =>
        db.query(`SELECT ops_bulk_seal_segment('hash-v1-1024', 1024, 1, $1, $2) AS sealed`, settings),
      );
      expect(sealed).toBe(true);
      const bounded: Array<{ indexname: string; indexdef: string }> = await runAsSystem('test', () =>
        db.query(INDEXES),
      );
      expect(bounded).toHaveLength(1);
      expect(bounded[0].indexdef).toMatch(/halfvec_cosine_ops\) WITH \(.*\) WHERE .*segment < 2/);
      for (const sql of halfvecIndexesDown()) await queryAsOwner(ctx.database, db, sql);
      for (const sql of halfvecIndexesUp()) await queryAsOwner(ctx.database, db, sql);
      const rebuilt: Array<{ indexname: string; indexdef: string }> = await runAsSystem('test', () =>
        db.query(INDEXES),
      );
      expect(rebuilt.map((i) => i.indexname)).toEqual(bounded.map((i) => i.indexname));
      expect(rebuilt[0].indexdef).toMatch(/halfvec_cosine_ops\) WITH \(.*\) WHERE .*segment < 2/);
      for (const query of QUERIES.slice(0, 3)) {
        const exact = await exactTop(query, 10);
        expect((await served(query, 10)).map((r) => r.chunkId)).toEqual(exact.map((r) => r.chunkId));
      }
    },
  );
});
