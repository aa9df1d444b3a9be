import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CacheStore, DatabaseInfo, ErrorKind } from '@app/platform';
import { DocumentsConfig } from '../documents.config';
import { EmbeddingProviders } from '../embedding/embedding-provider';
import { DocumentsException, DocumentsExceptionCode } from '../documents.exception';
import {
  CHUNK_TYPES,
  DocumentSearchFilters,
  DocumentSearchRequest,
  DocumentSearchResponse,
  DocumentSearchResult,
  FUSION_METHODS,
  FusionMethod,
  SEARCH_TYPES,
  SearchType,
} from '../documents.types';
import { DocumentsRepository } from '../ingestion/documents.repository';
import { highlightSnippet, toKeywordQuery } from '../text/search-text.util';
import { SearchCacheVersionsService } from './search-cache-versions.service';
import { SearchPlan, SearchRepository, SearchRow } from './search.repository';

const FILTER_KEYS = new Set([
  'document_ids',
  'content_types',
  'chunk_types',
  'metadata',
  'created_after',
  'created_before',
]);
const MAX_CANDIDATES = 2000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type CachedSearch = Omit<DocumentSearchResponse, 'cached' | 'execution_time_ms'>;

interface NormalizedRequest {
  query: string;
  search_type: SearchType;
  top_k: number;
  min_relevance: number;
  min_branch_relevance: number;
  fusion: FusionMethod;
  rrf_k: number;
  candidates: number;
  weights: { text: number; vector: number };
  filters: DocumentSearchFilters;
  /** Whose code chunks the search may see (the code tools, for their caller); null: none. */
  code_owner: string | null;
}

const hash = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);

function sortedFilters(filters: DocumentSearchFilters): DocumentSearchFilters {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(filters).sort()) {
    const value = (filters as Record<string, unknown>)[key];
    if (value === undefined) continue;
    sorted[key] = Array.isArray(value) ? [...(value as string[])].sort() : value;
  }
  return sorted;
}

/**
 * Hybrid document search for a tenant. Results are cached under the tenant's search cache version,
 * which every document change replaces, so a hit needs no database round trip.
 */
@Injectable()
export class DocumentSearchService {
  private readonly logger = new Logger('DocumentSearchService');
  /** Searches of this process being computed (past the cache): the parallel hybrid's condition. */
  private inFlight = 0;

  constructor(
    private readonly config: DocumentsConfig,
    private readonly database: DatabaseInfo,
    private readonly repository: SearchRepository,
    private readonly documents: DocumentsRepository,
    private readonly providers: EmbeddingProviders,
    private readonly cache: CacheStore,
    private readonly versions: SearchCacheVersionsService,
  ) {}

  /**
   * `options.codeOwner`: code chunks (documents with `metadata.source: "code"`, written by the code
   * lib per user) are private to their user. Only a caller that knows the user from authentication
   * (the code tools) passes it, and then sees that user's code; every other search sees no code.
   */
  async search(
    tenantId: string,
    request: DocumentSearchRequest,
    options: { codeOwner?: string } = {},
  ): Promise<DocumentSearchResponse> {
    const started = performance.now();
    const normalized = { ...this.normalize(request), code_owner: options.codeOwner ?? null };
    const outcome = await this.cachedOrComputed(tenantId, normalized);
    return {
      ...outcome.value,
      cached: outcome.hit,
      execution_time_ms: Math.round((performance.now() - started) * 10) / 10,
    };
  }

  /**
   * The version is read (or created) before any database state: the corpus state, the active model
   * and the search itself all come after it. A change that commits while a result is computed
   * replaces the version once committed, so that result is stored under the old version where no
   * search looks again, and a search that reads the new version reads the database after the commit.
   * The one window is between the commit and the replacement (the in-process `documents.changed`
   * event): a hit there is the pre-change answer.
   */
  private async cachedOrComputed(
    tenantId: string,
    request: NormalizedRequest,
  ): Promise<{ value: CachedSearch; hit: boolean }> {
    const compute = () => this.execute(tenantId, request);
    const ttl = this.config.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS;
    if (ttl <= 0) return { value: await compute(), hit: false };
    const requestHash = hash(request);
    const read = await this.versions.read<CachedSearch>(tenantId, requestHash);
    if (read.value !== undefined) return { value: read.value, hit: true };
    const version = read.version ?? (await this.versions.ensure(tenantId));
    if (version === undefined) return { value: await compute(), hit: false };
    const key = this.versions.key(tenantId, version, requestHash);
    const outcome = await this.cache.getOrCompute(key, ttl, compute);
    // A degraded answer (embeddings down) must not outlive the outage.
    if (!outcome.hit && outcome.value.warnings.length > 0) await this.cache.delete(key);
    return outcome;
  }

  private normalize(request: DocumentSearchRequest): Omit<NormalizedRequest, 'code_owner'> {
    const query =
      typeof request.query === 'string' ? request.query.normalize('NFKC').replace(/\s+/g, ' ').trim() : '';
    const maxChars = this.config.DOCUMENTS_SEARCH_MAX_QUERY_CHARS;
    if (query.length < 2)
      throw DocumentsException.invalidSearch('query must have at least 2 characters.', { field: 'query' });
    if (query.length > maxChars) {
      throw DocumentsException.invalidSearch(`query must have at most ${maxChars} characters.`, {
        field: 'query',
        length: query.length,
      });
    }
    const searchType = request.search_type ?? 'hybrid';
    if (!SEARCH_TYPES.includes(searchType)) {
      throw DocumentsException.invalidSearch(`search_type must be one of ${SEARCH_TYPES.join(', ')}.`, {
        field: 'search_type',
      });
    }
    const maxTopK = this.config.DOCUMENTS_SEARCH_MAX_TOP_K;
    const topK = request.top_k ?? 10;
    if (!Number.isInteger(topK) || topK < 1 || topK > maxTopK) {
      throw DocumentsException.invalidSearch(`top_k must be an integer from 1 to ${maxTopK}.`, {
        field: 'top_k',
        max: maxTopK,
      });
    }
    const candidates = request.candidates ?? Math.max(this.config.DOCUMENTS_SEARCH_CANDIDATES, topK);
    if (!Number.isInteger(candidates) || candidates < topK || candidates > MAX_CANDIDATES) {
      throw DocumentsException.invalidSearch(
        `candidates must be an integer from top_k to ${MAX_CANDIDATES}.`,
        { field: 'candidates' },
      );
    }
    const rrfK = request.rrf_k ?? this.config.DOCUMENTS_SEARCH_RRF_K;
    if (!Number.isFinite(rrfK) || rrfK < 1 || rrfK > 10_000) {
      throw DocumentsException.invalidSearch('rrf_k must be a number from 1 to 10000.', { field: 'rrf_k' });
    }
    const fusion = request.fusion ?? this.config.DOCUMENTS_SEARCH_FUSION;
    if (!FUSION_METHODS.includes(fusion)) {
      throw DocumentsException.invalidSearch(`fusion must be one of ${FUSION_METHODS.join(', ')}.`, {
        field: 'fusion',
      });
    }
    const weights = {
      text: request.weights?.text ?? this.config.DOCUMENTS_SEARCH_TEXT_WEIGHT,
      vector: request.weights?.vector ?? this.config.DOCUMENTS_SEARCH_VECTOR_WEIGHT,
    };
    if (
      ![weights.text, weights.vector].every((w) => Number.isFinite(w) && w >= 0) ||
      weights.text + weights.vector === 0
    ) {
      throw DocumentsException.invalidSearch('weights must be non-negative and not both zero.', {
        field: 'weights',
      });
    }
    const minRelevance = request.min_relevance ?? 0;
    if (!Number.isFinite(minRelevance) || minRelevance < -1 || minRelevance > 1) {
      throw DocumentsException.invalidSearch('min_relevance must be a number from -1 to 1.', {
        field: 'min_relevance',
      });
    }
    // A text or vector search's relevance_score is the branch score, so there the two floors are one;
    // a hybrid search keeps every branch candidate with a non-negative score unless asked otherwise.
    const minBranchRelevance = request.min_branch_relevance ?? (searchType === 'hybrid' ? 0 : minRelevance);
    if (!Number.isFinite(minBranchRelevance) || minBranchRelevance < -1 || minBranchRelevance > 1) {
      throw DocumentsException.invalidSearch('min_branch_relevance must be a number from -1 to 1.', {
        field: 'min_branch_relevance',
      });
    }
    return {
      query,
      search_type: searchType,
      top_k: topK,
      min_relevance: minRelevance,
      min_branch_relevance: minBranchRelevance,
      fusion,
      rrf_k: rrfK,
      candidates,
      weights,
      filters: sortedFilters(this.validateFilters(request.filters ?? {})),
    };
  }

  private validateFilters(filters: DocumentSearchFilters): DocumentSearchFilters {
    if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) {
      throw DocumentsException.invalidSearch('filters must be an object.', { field: 'filters' });
    }
    const unknown = Object.keys(filters).filter((key) => !FILTER_KEYS.has(key));
    if (unknown.length > 0) {
      throw DocumentsException.invalidSearch(`Unknown filter field(s): ${unknown.join(', ')}.`, {
        field: 'filters',
        unknown,
        allowed: [...FILTER_KEYS],
      });
    }
    const stringList = (name: keyof DocumentSearchFilters, check?: (v: string) => boolean) => {
      const value = filters[name];
      if (value === undefined) return;
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || (check && !check(v)))) {
        throw DocumentsException.invalidSearch(`filters.${name} must be a list of valid values.`, {
          field: `filters.${name}`,
        });
      }
    };
    stringList('document_ids', (v) => UUID.test(v));
    stringList('content_types');
    stringList('chunk_types', (v) => (CHUNK_TYPES as readonly string[]).includes(v));
    if (
      filters.metadata !== undefined &&
      (typeof filters.metadata !== 'object' || filters.metadata === null || Array.isArray(filters.metadata))
    ) {
      throw DocumentsException.invalidSearch('filters.metadata must be an object.', {
        field: 'filters.metadata',
      });
    }
    for (const name of ['created_after', 'created_before'] as const) {
      const value = filters[name];
      if (value !== undefined && (typeof value !== 'string' || Number.isNaN(Date.parse(value)))) {
        throw DocumentsException.invalidSearch(`filters.${name} must be an ISO 8601 date-time.`, {
          field: `filters.${name}`,
        });
      }
    }
    return filters;
  }

  private async queryVector(
    model: string,
    query: string,
  ): Promise<{ vector: number[]; dimensions: number } | { warning: string }> {
    const provider = this.providers.resolve(model);
    if (!provider)
      return { warning: `the embedding model ${model} serving this tenant is not available in this process` };
    try {
      const dimensions = await provider.dimensions();
      const ttl = this.config.DOCUMENTS_QUERY_EMBEDDING_CACHE_TTL_SECONDS;
      const key = `documents:query-embedding:${model}:${hash(query)}`;
      const embed = async () => (await provider.embed([query]))[0];
      const vector = ttl > 0 ? (await this.cache.getOrCompute(key, ttl, embed)).value : await embed();
      return { vector, dimensions };
    } catch (error) {
      this.logger.warn({ msg: 'query embedding failed', model, error: (error as Error).message });
      return { warning: `query embedding failed: ${(error as Error).message}` };
    }
  }

  /**
   * The keyword terms and the query vector (active model, then embedding, usually cached) are read at
   * the same time: on native each on its own pooled connection, so a hybrid search waits for one
   * round trip before its statement instead of two. A text search reads no model.
   */
  private async execute(tenantId: string, request: NormalizedRequest): Promise<CachedSearch> {
    this.inFlight++;
    try {
      return await this.executeCounted(tenantId, request);
    } finally {
      this.inFlight--;
    }
  }

  private async executeCounted(tenantId: string, request: NormalizedRequest): Promise<CachedSearch> {
    const warnings: string[] = [];
    let vector: number[] | null = null;
    let dimensions: number | null = null;
    let model: string | null = null;
    let segmentBound: number | null | undefined;
    const keywordQuery = toKeywordQuery(request.query);
    const base = {
      tenantId,
      searchType: request.search_type,
      keywordQuery,
      topK: request.top_k,
      candidates: request.candidates,
      fusion: request.fusion,
      rrfK: request.rrf_k,
      textWeight: request.weights.text,
      vectorWeight: request.weights.vector,
      minRelevance: request.min_branch_relevance,
      bm25K1: this.config.DOCUMENTS_SEARCH_BM25_K1,
      bm25B: this.config.DOCUMENTS_SEARCH_BM25_B,
      keywordBudget: this.config.DOCUMENTS_SEARCH_KEYWORD_BUDGET,
      efSearch: this.config.DOCUMENTS_SEARCH_HNSW_EF_SEARCH,
      filters: request.filters,
      codeOwner: request.code_owner,
    };
    const wantText = request.search_type !== 'vector' && keywordQuery !== null;
    const [terms, embedded] = await Promise.all([
      wantText
        ? this.repository.keywordTerms({ ...base, vector: null, model: null, dimensions: null })
        : null,
      request.search_type === 'text'
        ? null
        : // The model that embedded this tenant's chunks (a model switch re-embeds, then switches).
          this.documents.searchModel(tenantId, this.providers.configured.model).then(async (active) => ({
            ...active,
            result: await this.queryVector(active.model, request.query),
          })),
    ]);
    if (embedded) {
      if ('warning' in embedded.result) {
        if (request.search_type === 'vector') {
          throw new DocumentsException(
            DocumentsExceptionCode.EMBEDDINGS_UNAVAILABLE,
            ErrorKind.UNAVAILABLE,
            embedded.result.warning,
          );
        }
        warnings.push(`${embedded.result.warning}; answered with keyword search only`);
      } else {
        ({ vector, dimensions } = embedded.result);
        ({ model, segmentBound } = embedded);
      }
    }
    const plan: SearchPlan = { ...base, vector, model, dimensions, segmentBound };
    const rows = await this.repository.search(plan, terms, { parallel: this.parallelBranches() });
    // min_relevance is a floor on the returned relevance_score (the seed's filter after fusion). The rows come
    // ordered by the fused score, which relevance_score grows with, so filtering after the LIMIT drops only a tail.
    const results = rows
      .map((row, index) => this.toResult(row, index, request))
      .filter((result) => result.relevance_score >= request.min_relevance)
      .map((result, index) => ({ ...result, rank: index + 1 }));
    return {
      status: 'ok',
      query: request.query,
      search_type: request.search_type,
      results_count: results.length,
      results,
      embedding_model: vector ? model : null,
      warnings,
    };
  }

  /**
   * relevance_score: the branch's own score for text (BM25 as a fraction of its maximum) and vector (cosine
   * similarity) searches; for hybrid, the fused score scaled so first place in every branch is 1.0.
   */
  /**
   * Two connections at once for a hybrid's branches only while the database has room: with more than
   * DOCUMENTS_SEARCH_PARALLEL_MAX_IN_FLIGHT searches of this process at it, one statement per search
   * (measured at 100k chunks: parallel lowers hybrid p95 at concurrency 1 and raises it at 8, where every
   * connection and core is busy anyway; BENCHMARKS.md, issue 28). Native only: embedded has one connection.
   */
  private parallelBranches(): boolean {
    return (
      this.config.DOCUMENTS_SEARCH_PARALLEL_BRANCHES &&
      this.database.backend === 'native' &&
      this.inFlight <= this.config.DOCUMENTS_SEARCH_PARALLEL_MAX_IN_FLIGHT
    );
  }

  private toResult(row: SearchRow, index: number, request: NormalizedRequest): DocumentSearchResult {
    const text =
      row.text_rank === null ? null : { rank: Number(row.text_rank), score: Number(row.text_score) };
    const vector =
      row.vector_rank === null ? null : { rank: Number(row.vector_rank), score: Number(row.vector_score) };
    let relevance: number;
    if (request.search_type === 'text') relevance = text?.score ?? 0;
    else if (request.search_type === 'vector') relevance = vector?.score ?? 0;
    else {
      const best =
        request.fusion === 'convex'
          ? request.weights.text + request.weights.vector
          : (request.weights.text + request.weights.vector) / (request.rrf_k + 1);
      relevance = Number(row.fused) / best;
    }
    return {
      rank: index + 1,
      chunk_id: row.chunk_id,
      document_id: row.document_id,
      document_name: row.document_name,
      chunk_text: row.text,
      chunk_index: row.chunk_index,
      page_number: row.page_number,
      slide_number: row.slide_number,
      chunk_type: row.chunk_type,
      relevance_score: Math.round(relevance * 1e6) / 1e6,
      snippet: highlightSnippet(row.text, request.query),
      branches: { text, vector },
    };
  }
}
