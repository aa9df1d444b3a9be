import { DataSource } from 'typeorm';
import { AuthService, CacheStore } from '@app/platform';
import {
  DocumentIngestionService,
  DocumentSearchService,
  DocumentsModule,
  EmbeddingProviders,
  type SearchPlan,
} from '@app/documents';
import { SearchRepository, toKeywordQuery } from '@app/documents/testing';
import { startTestContext, TestContext, testBackend } from '@test/support';

const EN_DOCS = {
  'payments.md':
    '# Payment gateway\n\nRestart the payment gateway by draining traffic, then rolling the pods one at a time.',
  'backup.md':
    '# Backups\n\nNightly PostgreSQL backups are written to object storage and verified every Sunday.',
  'oncall.md':
    '# On-call\n\nThe on-call engineer acknowledges pages within five minutes and opens an incident channel.',
};
const KO_DOCS = {
  'vacation.md': '# 휴가 규정\n\n연차 휴가는 포털에서 신청하며, 팀장의 승인이 필요합니다.',
  'deploy.md': '# 배포 절차\n\n배포는 화요일과 목요일에만 진행하며, 롤백 계획을 미리 작성합니다.',
  'security.md': '# 보안 점검\n\n서버 접근 권한은 분기마다 검토하고 불필요한 계정을 삭제합니다.',
};

describe(`document search (${testBackend()})`, () => {
  let ctx: TestContext;
  let ingestion: DocumentIngestionService;
  let search: DocumentSearchService;
  let tenantA: string;
  let tenantB: string;

  beforeAll(async () => {
    ctx = await startTestContext([DocumentsModule]);
    ingestion = ctx.get(DocumentIngestionService);
    search = ctx.get(DocumentSearchService);
    const auth = ctx.get(AuthService);
    tenantA = (await auth.createTenant('search-a', 'A', undefined)).tenant.id;
    tenantB = (await auth.createTenant('search-b', 'B', undefined)).tenant.id;
    for (const [filename, content] of Object.entries({ ...EN_DOCS, ...KO_DOCS })) {
      await ingestion.create(tenantA, {
        filename,
        content,
        metadata: { lang: /[가-힣]/.test(content) ? 'ko' : 'en' },
      });
    }
    await ingestion.create(tenantB, {
      filename: 'b-secret.md',
      content: '# Payment gateway secrets\n\nTenant B only: gateway restart codes.',
    });
    await ingestion.processQueue();
  });
  afterAll(() => ctx?.close());

  const top = async (tenant: string, query: string, searchType: 'text' | 'vector' | 'hybrid') =>
    (await search.search(tenant, { query, search_type: searchType, top_k: 3 })).results[0]?.document_name;

  it.each(['text', 'vector', 'hybrid'] as const)('finds English and Korean documents (%s)', async (type) => {
    expect(await top(tenantA, 'how do I restart the payment gateway', type)).toBe('payments.md');
    expect(await top(tenantA, 'postgres backup verification', type)).toBe('backup.md');
    expect(await top(tenantA, '휴가를 신청하는 방법', type)).toBe('vacation.md');
    expect(await top(tenantA, '배포 롤백 계획', type)).toBe('deploy.md');
  });

  it('returns rank and raw score per branch, a highlighted snippet and timing', async () => {
    const response = await search.search(tenantA, { query: 'restart payment gateway', top_k: 5 });
    expect(response).toMatchObject({
      status: 'ok',
      search_type: 'hybrid',
      results_count: response.results.length,
      embedding_model: 'hash-v1-1024',
    });
    const [first] = response.results;
    expect(first).toMatchObject({
      rank: 1,
      document_name: 'payments.md',
      chunk_type: 'text',
      page_number: null,
    });
    expect(first.branches.text).toMatchObject({ rank: 1 });
    expect(first.branches.vector).toMatchObject({ rank: 1 });
    // Default convex fusion: (w_text * BM25/best + w_vector * cosine) / (w_text + w_vector).
    expect(first.relevance_score).toBeCloseTo((1 + 0.2 * first.branches.vector!.score) / 1.2, 5);
    expect(first.snippet).toContain('<mark>');
    const rrf = await search.search(tenantA, { query: 'restart payment gateway', top_k: 5, fusion: 'rrf' });
    expect(rrf.results[0]).toMatchObject({ document_name: 'payments.md' });
    expect(rrf.results[0].relevance_score).toBeCloseTo(1, 5);
    expect(typeof response.execution_time_ms).toBe('number');
  });

  it('never shows one tenant another tenant\u2019s chunks', async () => {
    for (const type of ['text', 'vector', 'hybrid'] as const) {
      const a = await search.search(tenantA, {
        query: 'gateway restart codes secrets',
        search_type: type,
        top_k: 20,
      });
      expect(a.results.map((r) => r.document_name)).not.toContain('b-secret.md');
      const b = await search.search(tenantB, { query: '휴가 신청', search_type: type, top_k: 20 });
      expect(b.results.every((r) => r.document_name === 'b-secret.md')).toBe(true);
    }
    const other = (await ctx.get(AuthService).createTenant('search-c', 'C', undefined)).tenant.id;
    expect((await search.search(other, { query: 'payment gateway' })).results).toEqual([]);
  });

  it('applies filters in both branches, and min_relevance to the returned relevance_score', async () => {
    const ko = await search.search(tenantA, {
      query: 'gateway 휴가',
      top_k: 10,
      filters: { metadata: { lang: 'ko' } },
    });
    expect(ko.results.length).toBeGreaterThan(0);
    expect(ko.results.every((r) => Object.keys(KO_DOCS).includes(r.document_name))).toBe(true);
    const strict = await search.search(tenantA, {
      query: 'payment gateway',
      search_type: 'vector',
      top_k: 10,
      min_relevance: 0.3,
    });
    expect(strict.results.every((r) => r.relevance_score >= 0.3)).toBe(true);
    expect(strict.results.length).toBeLessThan(6);
  });

  it('hybrid: min_relevance filters the fused score (as in the seed), min_branch_relevance each branch', async () => {
    const query = 'restart the payment gateway';
    const all = await search.search(tenantA, { query, top_k: 10 });
    // Just above the top hit's cosine: a per-branch floor would drop its vector hit; the fused score keeps it.
    const floor = Math.min(0.95, all.results[0].branches.vector!.score + 0.01);
    const fused = await search.search(tenantA, { query, top_k: 10, min_relevance: floor });
    // Exactly the unfiltered results whose fused relevance_score reaches the floor, ranks kept.
    expect(fused.results.map((r) => [r.rank, r.chunk_id])).toEqual(
      all.results.filter((r) => r.relevance_score >= floor).map((r) => [r.rank, r.chunk_id]),
    );
    expect(fused.results.length).toBeGreaterThan(0);
    expect(fused.results.length).toBeLessThan(all.results.length);
    expect(fused.results[0]).toMatchObject({ document_name: 'payments.md' });
    expect(fused.results[0].branches.vector!.score).toBeLessThan(floor);
    expect(fused.results[0].relevance_score).toBeGreaterThanOrEqual(floor);
    const branch = await search.search(tenantA, { query, top_k: 10, min_branch_relevance: 0.3 });
    for (const r of branch.results) {
      for (const hit of [r.branches.text, r.branches.vector])
        if (hit) expect(hit.score).toBeGreaterThanOrEqual(0.3);
    }
    expect(branch.results[0]).toMatchObject({ document_name: 'payments.md' });
  });

  it('the keyword score counts the question words no document holds', async () => {
    const score = async (query: string) => {
      const response = await search.search(tenantA, { query, search_type: 'text', top_k: 1 });
      expect(response.results[0]?.document_name).toBe('backup.md');
      return response.results[0].branches.text!.score;
    };
    const matched = await score('nightly backups');
    // Two more words in no document: the same chunk now matches a smaller share of the question.
    const diluted = await score('nightly backups zebra quokka');
    expect(diluted).toBeLessThan(matched * 0.75);
  });

  it('rejects bad requests with a coded 400-kind error', async () => {
    const bad = [
      { query: ' a ' },
      { query: 'x'.repeat(5000) },
      { query: 'ok query', top_k: 1000 },
      { query: 'ok query', filters: { colour: 'red' } },
      { query: 'ok query', search_type: 'fuzzy' },
      { query: 'ok query', min_relevance: 2 },
      { query: 'ok query', min_branch_relevance: -3 },
    ];
    for (const request of bad) {
      await expect(search.search(tenantA, request as never)).rejects.toMatchObject({
        code: 'INVALID_SEARCH_REQUEST',
        kind: 'INVALID_INPUT',
      });
    }
  });

  it('caches per tenant version: a document change is visible at once, with no key scan', async () => {
    const query = { query: 'incident channel acknowledgement', top_k: 5 };
    const first = await search.search(tenantA, query);
    expect(first.cached).toBe(false);
    expect((await search.search(tenantA, query)).cached).toBe(true);
    const doc = await ingestion.create(tenantA, {
      filename: 'incident.md',
      content: '# Incident channel\n\nOpen the incident channel and post acknowledgement.',
    });
    await ingestion.processQueue();
    const after = await search.search(tenantA, query);
    expect(after.cached).toBe(false);
    expect(after.results[0].document_id).toBe(doc.id);
    await ingestion.remove(tenantA, doc.id);
    expect((await search.search(tenantA, query)).results.map((r) => r.document_id)).not.toContain(doc.id);
  });

  it('computes identical concurrent misses once', async () => {
    const cache = ctx.get(CacheStore);
    const spy = jest.spyOn(ctx.get(DataSource), 'query');
    const request = { query: 'nightly object storage', search_type: 'text' as const };
    await Promise.all([1, 2, 3, 4].map(() => search.search(tenantA, request)));
    const searches = spy.mock.calls.filter(
      ([sql]) => typeof sql === 'string' && sql.includes('text_hits AS'),
    );
    expect(searches).toHaveLength(1);
    spy.mockRestore();
    expect(cache.health().available).toBe(true);
  });

  it('returns top_k rows under a 1%-selective filter', async () => {
    const tenant = (await ctx.get(AuthService).createTenant('search-selective', 'S', undefined)).tenant.id;
    const docs = 20;
    const perDoc = 100;
    for (let d = 0; d < docs; d++) {
      const lines = Array.from(
        { length: perDoc },
        (_, i) => `## Item ${d}-${i}\n\nService ${i % 7} latency note number ${d * perDoc + i} about caches.`,
      );
      await ingestion.create(tenant, {
        filename: `bulk-${d}.md`,
        content: lines.join('\n\n'),
        metadata: { shard: d === 7 ? 'rare' : 'common' },
      });
    }
    await ingestion.processQueue();
    const db = ctx.get(DataSource);
    const [{ total }] = await db.query(
      `SELECT count(*)::int AS total FROM document_chunks WHERE tenant_id = $1`,
      [tenant],
    );
    expect(total).toBeGreaterThanOrEqual(docs * perDoc);
    // Planner statistics as autovacuum would leave them in production.
    await db.query('ANALYZE chunk_embeddings, document_chunks, documents');
    const response = await search.search(tenant, {
      query: 'service latency caches',
      search_type: 'vector',
      top_k: 10,
      candidates: 10,
      filters: { metadata: { shard: 'rare' } },
    });
    expect(response.results).toHaveLength(10);
    expect(response.results.every((r) => r.document_name === 'bulk-7.md')).toBe(true);
  });
  it('hybrid: both branches on two connections answer exactly as the one statement', async () => {
    const repository = ctx.get(SearchRepository);
    const provider = ctx.get(EmbeddingProviders).configured;
    const queries = [
      'how do I restart the payment gateway',
      'backups object storage',
      '배포 롤백 계획',
      '휴가 승인',
    ];
    for (const query of queries) {
      for (const fusion of ['convex', 'rrf'] as const) {
        const plan: SearchPlan = {
          tenantId: tenantA,
          searchType: 'hybrid',
          keywordQuery: toKeywordQuery(query),
          vector: (await provider.embed([query]))[0],
          model: provider.model,
          dimensions: await provider.dimensions(),
          topK: 4,
          candidates: 100,
          fusion,
          rrfK: 60,
          textWeight: 1,
          vectorWeight: 0.2,
          minRelevance: 0,
          bm25K1: 0.9,
          bm25B: 0.4,
          keywordBudget: 1000,
          filters: {},
          codeOwner: null,
        };
        const terms = await repository.keywordTerms(plan);
        const one = await repository.search(plan, terms, { parallel: false });
        const two = await repository.search(plan, terms, { parallel: true });
        expect(one.length).toBeGreaterThan(0);
        expect(two.map((r) => ({ ...r, text_rank: r.text_rank && String(r.text_rank) }))).toEqual(
          one.map((r) => ({ ...r, text_rank: r.text_rank && String(r.text_rank) })),
        );
      }
    }
  });
});
