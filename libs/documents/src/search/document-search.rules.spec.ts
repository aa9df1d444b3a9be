import type { CacheStore, DatabaseInfo } from '@app/platform';
import type { DocumentsConfig } from '../documents.config';
import type { EmbeddingProviders } from '../embedding/embedding-provider';
import type { DocumentsRepository } from '../ingestion/documents.repository';
import type { DocumentSearchRequest } from '../documents.types';
import { DocumentSearchService } from './document-search.service';
import type { SearchCacheVersionsService } from './search-cache-versions.service';
import type { SearchPlan, SearchRepository, SearchRow } from './search.repository';

const SETTINGS: Record<string, unknown> = {
  DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: 0,
  DOCUMENTS_QUERY_EMBEDDING_CACHE_TTL_SECONDS: 0,
  DOCUMENTS_SEARCH_MAX_QUERY_CHARS: 40,
  DOCUMENTS_SEARCH_MAX_TOP_K: 100,
  DOCUMENTS_SEARCH_CANDIDATES: 50,
  DOCUMENTS_SEARCH_RRF_K: 60,
  DOCUMENTS_SEARCH_FUSION: 'rrf',
  DOCUMENTS_SEARCH_TEXT_WEIGHT: 1,
  DOCUMENTS_SEARCH_VECTOR_WEIGHT: 0.5,
  DOCUMENTS_SEARCH_BM25_K1: 0.9,
  DOCUMENTS_SEARCH_BM25_B: 0.4,
  DOCUMENTS_SEARCH_KEYWORD_BUDGET: 1000,
  DOCUMENTS_SEARCH_HNSW_EF_SEARCH: 40,
  DOCUMENTS_SEARCH_PARALLEL_BRANCHES: false,
};

const row = (
  id: string,
  fused: number,
  text: [number, number] | null,
  vector: [number, number] | null,
): SearchRow => ({
  chunk_id: id,
  document_id: `doc-${id}`,
  document_name: `${id}.md`,
  text: `장애 대응 절차 ${id}`,
  chunk_index: 0,
  page_number: null,
  slide_number: null,
  chunk_type: 'text',
  text_rank: text ? String(text[0]) : null,
  text_score: text ? text[1] : null,
  vector_rank: vector ? String(vector[0]) : null,
  vector_score: vector ? vector[1] : null,
  fused,
});

/** The service over stand-ins: the plan it builds is recorded, the rows come from the test. */
function serviceAnswering(rows: SearchRow[] = []) {
  const plans: SearchPlan[] = [];
  const repository = {
    keywordTerms: () => Promise.resolve({ terms: ['x'] }),
    search: (plan: SearchPlan) => (plans.push(plan), Promise.resolve(rows)),
  } as unknown as SearchRepository;
  const documents = {
    searchModel: () => Promise.resolve({ model: 'm', segmentBound: null }),
  } as unknown as DocumentsRepository;
  const provider = { dimensions: () => Promise.resolve(2), embed: () => Promise.resolve([[0.6, 0.8]]) };
  const providers = { configured: { model: 'm' }, resolve: () => provider } as unknown as EmbeddingProviders;
  const config = { ...SETTINGS } as unknown as DocumentsConfig;
  const service = new DocumentSearchService(
    config,
    { backend: 'embedded' } as DatabaseInfo,
    repository,
    documents,
    providers,
    {} as CacheStore,
    {} as SearchCacheVersionsService,
  );
  return {
    plans,
    search: (request: Partial<DocumentSearchRequest>) =>
      service.search('t1', request as DocumentSearchRequest),
  };
}

describe('document search: the request as the search reads it', () => {
  it('folds width and case and collapses whitespace before anything else (NFKC)', async () => {
    const { plans, search } = serviceAnswering();
    const response = await search({ query: '  ＣＰＵ\t\n사용률   ', search_type: 'text' });
    expect(response.query).toBe('CPU 사용률');
    expect(plans[0].keywordQuery).toBe('cpu or 사용 or 용률');
  });

  it('counts the length after normalising: two Korean syllables are a query, one character is not', async () => {
    const { search } = serviceAnswering();
    await expect(search({ query: '장애', search_type: 'text' })).resolves.toMatchObject({ query: '장애' });
    await expect(search({ query: ' 장 ' })).rejects.toMatchObject({ details: { field: 'query' } });
    await expect(search({ query: `  ${'가'.repeat(40)}      ` })).resolves.toBeDefined();
    await expect(search({ query: '가'.repeat(41) })).rejects.toMatchObject({
      details: { field: 'query', length: 41 },
    });
    await expect(search({ query: 42 as unknown as string })).rejects.toMatchObject({
      details: { field: 'query' },
    });
  });

  it.each([
    [{ search_type: 'fuzzy' }, 'search_type'],
    [{ top_k: 0 }, 'top_k'],
    [{ top_k: 2.5 }, 'top_k'],
    [{ top_k: 101 }, 'top_k'],
    [{ top_k: 20, candidates: 10 }, 'candidates'],
    [{ candidates: 2001 }, 'candidates'],
    [{ rrf_k: 0 }, 'rrf_k'],
    [{ rrf_k: Number.NaN }, 'rrf_k'],
    [{ fusion: 'max' }, 'fusion'],
    [{ weights: { text: 0, vector: 0 } }, 'weights'],
    [{ weights: { text: -1 } }, 'weights'],
    [{ min_relevance: 1.5 }, 'min_relevance'],
    [{ min_branch_relevance: -2 }, 'min_branch_relevance'],
    [{ filters: [] }, 'filters'],
    [{ filters: { owner: 'x' } }, 'filters'],
    [{ filters: { document_ids: ['not-a-uuid'] } }, 'filters.document_ids'],
    [{ filters: { chunk_types: ['video'] } }, 'filters.chunk_types'],
    [{ filters: { metadata: ['a'] } }, 'filters.metadata'],
    [{ filters: { created_after: '어제' } }, 'filters.created_after'],
  ])('refuses %j, naming the field %s', async (request, field) => {
    const { search, plans } = serviceAnswering();
    await expect(search({ query: 'cpu 사용률', ...(request as object) })).rejects.toMatchObject({
      code: 'INVALID_SEARCH_REQUEST',
      details: { field },
    });
    expect(plans).toHaveLength(0);
  });

  it('fills the defaults: hybrid, 10 results, candidates at least top_k, the configured fusion and weights', async () => {
    const { plans, search } = serviceAnswering();
    await search({ query: 'cpu' });
    expect(plans[0]).toMatchObject({
      searchType: 'hybrid',
      topK: 10,
      candidates: 50,
      fusion: 'rrf',
      rrfK: 60,
      textWeight: 1,
      vectorWeight: 0.5,
      minRelevance: 0,
      model: 'm',
      vector: [0.6, 0.8],
    });
    await search({ query: 'cpu', top_k: 80, weights: { vector: 0 } });
    expect(plans[1]).toMatchObject({ topK: 80, candidates: 80, textWeight: 1, vectorWeight: 0 });
  });

  it('uses min_relevance inside the branch for a text or vector search, but not for hybrid', async () => {
    const { plans, search } = serviceAnswering();
    await search({ query: 'cpu', search_type: 'text', min_relevance: 0.3 });
    await search({ query: 'cpu', search_type: 'hybrid', min_relevance: 0.3 });
    expect(plans.map((p) => p.minRelevance)).toEqual([0.3, 0]);
  });
});

describe('document search: relevance_score', () => {
  it('rrf: first place in both branches scores 1, first in the text branch alone its share of the weights', async () => {
    const k = 60;
    const { search } = serviceAnswering([
      row('a', 1 / (k + 1) + 0.5 / (k + 1), [1, 9.1], [1, 0.9]),
      row('b', 1 / (k + 1), [1, 9.1], null),
      row('c', 0.5 / (k + 2), null, [2, 0.8]),
    ]);
    const { results } = await search({ query: 'cpu' });
    expect(results.map((r) => r.relevance_score)).toEqual([
      1,
      Number((1 / 1.5).toFixed(6)),
      Number((0.5 / 62 / (1.5 / 61)).toFixed(6)),
    ]);
    expect(results[2].branches).toEqual({ text: null, vector: { rank: 2, score: 0.8 } });
  });

  it('convex: the fused score over the sum of the weights', async () => {
    const { search } = serviceAnswering([row('a', 1 * 0.7 + 0.5 * 0.9, [1, 3], [1, 0.9])]);
    const { results } = await search({ query: 'cpu', fusion: 'convex' });
    expect(results[0].relevance_score).toBe(Number(((0.7 + 0.45) / 1.5).toFixed(6)));
  });

  it('text and vector searches report the branch score itself', async () => {
    const { search } = serviceAnswering([row('a', 0, [1, 0.42], [1, 0.77])]);
    expect((await search({ query: 'cpu', search_type: 'text' })).results[0].relevance_score).toBe(0.42);
    expect((await search({ query: 'cpu', search_type: 'vector' })).results[0].relevance_score).toBe(0.77);
  });

  it('drops results under min_relevance and numbers the rest from 1', async () => {
    const { search } = serviceAnswering([
      row('a', 0, [1, 0.9], null),
      row('b', 0, [2, 0.1], null),
      row('c', 0, [3, 0.6], null),
    ]);
    const { results, results_count } = await search({
      query: 'cpu',
      search_type: 'text',
      min_relevance: 0.5,
    });
    expect(results.map((r) => [r.chunk_id, r.rank])).toEqual([
      ['a', 1],
      ['c', 2],
    ]);
    expect(results_count).toBe(2);
  });
});
