import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ChunkType, DocumentSearchFilters, FusionMethod, SearchType } from '../documents.types';
import { sqlLiteral, toVectorBinary } from '../ingestion/chunks.repository';

export interface SearchPlan {
  tenantId: string;
  searchType: SearchType;
  /** websearch_to_tsquery input, or null when the text branch has nothing to match. */
  keywordQuery: string | null;
  vector: number[] | null;
  model: string | null;
  dimensions: number | null;
  topK: number;
  candidates: number;
  fusion: FusionMethod;
  rrfK: number;
  textWeight: number;
  vectorWeight: number;
  /** Floor on each branch's own score inside the branch (the request's min_branch_relevance). */
  minRelevance: number;
  bm25K1: number;
  bm25B: number;
  /** Postings the keyword branch may read to find candidates (rarest terms first). */
  keywordBudget: number;
  filters: DocumentSearchFilters;
  /** HNSW ef_search floor (DOCUMENTS_SEARCH_HNSW_EF_SEARCH); the search explores max(this, candidates). */
  efSearch?: number;
  /** The user whose code chunks are visible (see DocumentSearchService.search); null: no code chunks. */
  codeOwner: string | null;
  /**
   * The bound of the model's bulk-loaded index (null: no bulk load), read with the active model
   * (DocumentsRepository.searchModel); undefined: read here, in the round trip of the HNSW settings or alone.
   */
  segmentBound?: number | null;
}

export interface SearchRow {
  chunk_id: string;
  document_id: string;
  document_name: string;
  text: string;
  chunk_index: number;
  page_number: number | null;
  slide_number: number | null;
  chunk_type: ChunkType;
  text_rank: string | null;
  text_score: number | null;
  vector_rank: string | null;
  vector_score: number | null;
  fused: number;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Tenant, liveness, active-version and user filters; the same text in both branches. */
function filterSql(plan: SearchPlan, p: Params, tenantParam: string): string {
  const f = plan.filters;
  const parts = [
    `c.tenant_id = ${tenantParam}`,
    `d.tenant_id = ${tenantParam}`,
    'd.deleted_at IS NULL',
    'c.chunk_version = d.active_version',
  ];
  if (f.document_ids?.length) parts.push(`d.id = ANY(${p.add(f.document_ids)}::uuid[])`);
  if (f.content_types?.length) parts.push(`d.content_type = ANY(${p.add(f.content_types)}::text[])`);
  if (f.chunk_types?.length) parts.push(`c.chunk_type = ANY(${p.add(f.chunk_types)}::text[])`);
  if (f.metadata && Object.keys(f.metadata).length > 0)
    parts.push(`d.doc_metadata @> ${p.add(JSON.stringify(f.metadata))}::jsonb`);
  if (f.created_after) parts.push(`d.created_at >= ${p.add(f.created_after)}::timestamptz`);
  if (f.created_before) parts.push(`d.created_at < ${p.add(f.created_before)}::timestamptz`);
  // Code chunks are private to the user who sent the code: visible only to that user's code search.
  parts.push(
    plan.codeOwner === null
      ? `NOT (d.doc_metadata @> '{"source": "code"}'::jsonb)`
      : `d.doc_metadata @> ${p.add(JSON.stringify({ source: 'code', user_id: plan.codeOwner }))}::jsonb`,
  );
  return parts.join(' AND ');
}

/** The query's terms as the keyword branch reads them, from the tenant's term statistics. */
export interface KeywordTerms {
  terms: string[];
  idfs: number[];
  /** Terms whose postings are read to find candidates, as a tsquery; null when none. */
  candidateQuery: string | null;
  avgdl: number;
  /**
   * IDF of the query's terms the tenant's corpus does not hold, which no chunk can match, each counted at the
   * mean IDF of the terms it does hold (at the IDF of an unseen term, filler words of a question would swamp a
   * small corpus): part of the keyword score's maximum, so a chunk sharing one word of a long off-topic
   * question does not score as if it matched the whole question.
   */
  missingIdf: number;
}

/**
 * Step one of the keyword branch, its own round trip so that step two is planned with the actual
 * tsquery: inside one statement the planner cannot see a tsquery built by a CTE, guesses its
 * selectivity, and at 10k chunks chose a sequential scan evaluating `@@` on every row (30 ms)
 * over the GIN index (2 ms). IDF and the average length come from the tenant's maintained
 * statistics. Terms are taken in ascending document frequency while the postings read in total
 * stay within `keywordBudget` (MaxScore's idea: a chunk holding none of the rare terms can only
 * score through common, low-IDF terms), so no query reads more than max(budget, the rarest term's
 * postings); the rarest term always counts, so every query has candidates.
 */
const KEYWORD_TERMS_SQL = `
  WITH tc AS (
    SELECT greatest(n.chunk_count, 1)::float8 AS n,
           greatest(n.total_length::float8 / greatest(n.chunk_count, 1), 1) AS avgdl
    FROM document_corpus n WHERE n.tenant_id = $1
  ),
  terms AS (
    SELECT s.term, ln(1 + (tc.n - least(s.df, tc.n) + 0.5) / (least(s.df, tc.n) + 0.5)) AS idf, tc.avgdl, tc.n,
           sum(s.df) OVER (ORDER BY s.df, s.term ROWS UNBOUNDED PRECEDING) AS postings_through,
           row_number() OVER (ORDER BY s.df, s.term) AS rarity
    FROM document_term_stats s CROSS JOIN tc
    WHERE s.tenant_id = $1 AND s.df > 0 AND s.term = ANY (tsvector_to_array(to_tsvector('english', $2)))
  )
  SELECT coalesce(array_agg(term ORDER BY rarity), '{}') AS terms,
         coalesce(array_agg(idf ORDER BY rarity), '{}') AS idfs,
         string_agg(quote_literal(term), ' | ' ORDER BY rarity) FILTER (WHERE rarity = 1 OR postings_through <= $3)
           AS candidate_query,
         max(avgdl) AS avgdl,
         cardinality(tsvector_to_array(to_tsvector('english', $2))) - count(*) AS missing
  FROM terms`;

/**
 * Step two, the keyword branch: Okapi BM25 inside PostgreSQL over the candidates the GIN index
 * finds for the candidate query. Per candidate, `setweight(..., lexemes)` + `ts_filter` keep the
 * lexemes of ALL query terms (a C-level lookup), whose position counts are the term frequencies,
 * so scores are exact BM25 over every term. The score is reported as a fraction of the best a
 * chunk could reach (every query term, saturated, including the terms no chunk holds: see missingIdf), so it stays in
 * [0, 1] like the other branch and says how much of the question a chunk matches.
 */
function keywordBranchSql(plan: SearchPlan, terms: KeywordTerms, p: Params, filters: string): string {
  const k1 = `${p.add(plan.bm25K1)}::float8`;
  const b = `${p.add(plan.bm25B)}::float8`;
  const termList = `${p.add(terms.terms)}::text[]`;
  const best = (terms.idfs.reduce((sum, idf) => sum + idf, 0) + terms.missingIdf) * (plan.bm25K1 + 1);
  return `text_terms AS (
    SELECT * FROM unnest(${termList}, ${p.add(terms.idfs)}::float8[]) AS t(term, idf)
  ),
  text_matches AS MATERIALIZED (
    SELECT c.id AS chunk_id, c.search_length, ts_filter(setweight(c.search_vector, 'A', ${termList}), '{a}') AS hits
    FROM document_chunks c
    JOIN documents d ON d.id = c.document_id
    WHERE c.search_vector @@ ${p.add(terms.candidateQuery)}::tsquery AND ${filters}
  ),
  text_hits AS (
    SELECT m.chunk_id,
           sum(t.idf * cardinality(u.positions) * (${k1} + 1)
               / (cardinality(u.positions) + ${k1} * (1 - ${b} + ${b} * m.search_length / ${p.add(terms.avgdl)}::float8)))
             AS score
    FROM text_matches m
    CROSS JOIN LATERAL unnest(m.hits) u
    JOIN text_terms t ON t.term = u.lexeme
    GROUP BY m.chunk_id
    ORDER BY score DESC, m.chunk_id
    LIMIT ${p.add(plan.candidates)}
  ),
  text_ranked AS (
    SELECT chunk_id, score, row_number() OVER (ORDER BY score DESC, chunk_id) AS rank,
           score / nullif(max(score) OVER (), 0) AS norm
    FROM (SELECT h.chunk_id, h.score / ${p.add(Math.max(best, 1e-9))}::float8 AS score FROM text_hits h) s
    WHERE score >= ${p.add(plan.minRelevance)}
  )`;
}

/**
 * The vector branch: the model's partial HNSW index (half precision on native PostgreSQL, float4 on
 * PGlite: see the HalfvecEmbeddingIndexes migration) finds `candidates` chunks, iterative scans keep filters honest; the candidates are then
 * ranked by the exact cosine of the stored float4 vectors, so the index's half precision and its
 * relaxed order cost no ranking precision.
 */
function vectorBranchSql(
  plan: SearchPlan,
  p: Params,
  filters: string,
  segmentBound: number | null,
  halfvec: boolean,
): string {
  const dims = Number(plan.dimensions);
  // After a bulk load the model's index is partial on `segment < bound`: a literal, so the planner
  // proves the index predicate (a bulk load in progress writes its vectors at the bound, outside it).
  const segment = segmentBound === null ? '' : ` AND e.segment < ${Math.trunc(Number(segmentBound))}`;
  const query = p.add(toVectorBinary(plan.vector!));
  return `vector_hits AS (
    SELECT h.chunk_id, (h.embedding::vector(${dims})) <=> ${query}::vector(${dims}) AS distance
    FROM (
      SELECT e.chunk_id, e.embedding
      FROM chunk_embeddings e
      WHERE e.model = ${sqlLiteral(plan.model!)}${segment} AND e.tenant_id = ${p.add(plan.tenantId)}
        AND EXISTS (
          SELECT 1 FROM document_chunks c JOIN documents d ON d.id = c.document_id
          WHERE c.id = e.chunk_id AND ${filters})
      ORDER BY ${
        halfvec
          ? `(e.embedding::halfvec(${dims})) <=> ${query}::vector(${dims})::halfvec(${dims})`
          : `(e.embedding::vector(${dims})) <=> ${query}::vector(${dims})`
      }
      LIMIT ${p.add(plan.candidates)}
    ) h
  ),
  vector_ranked AS (
    SELECT chunk_id, 1 - distance AS score, row_number() OVER (ORDER BY distance, chunk_id) AS rank,
           greatest(1 - distance, 0) AS norm
    FROM vector_hits WHERE 1 - distance >= ${p.add(plan.minRelevance)}
  )`;
}

/** A pooled connection that remembers the HNSW settings it was given (native only, see withHnsw). */
interface HnswClient {
  opsHnswEfSearch?: string;
}

/** One branch's candidates, as the fused statement's `text_ranked` / `vector_ranked` hold them. */
export interface BranchRow {
  chunk_id: string;
  score: number;
  rank: string;
  norm: number;
}

/**
 * The hybrid fusion the one statement computes, on two branches' candidates: per chunk the sum over the
 * branches it is in of `weight / (rrf_k + rank)` (rrf) or `weight * norm` (convex, the branch score scaled
 * to 0..1), highest first, ties by chunk id, the first `topK`.
 */
export function fuseBranches(
  plan: Pick<SearchPlan, 'fusion' | 'rrfK' | 'textWeight' | 'vectorWeight' | 'topK'>,
  text: BranchRow[],
  vector: BranchRow[],
) {
  const term = (weight: number, row: BranchRow | undefined) =>
    row === undefined
      ? 0
      : plan.fusion === 'convex'
        ? weight * row.norm
        : weight / (plan.rrfK + Number(row.rank));
  const byChunk = new Map<string, { t?: BranchRow; v?: BranchRow }>();
  for (const t of text) byChunk.set(t.chunk_id, { t });
  for (const v of vector) byChunk.set(v.chunk_id, { ...byChunk.get(v.chunk_id), v });
  return [...byChunk.entries()]
    .map(([chunkId, { t, v }]) => ({
      chunk_id: chunkId,
      text_rank: t ? t.rank : null,
      text_score: t ? t.score : null,
      vector_rank: v ? v.rank : null,
      vector_score: v ? v.score : null,
      // The statement's `COALESCE(w * t.norm, 0) + COALESCE(w * v.norm, 0)`, same float arithmetic.
      fused: term(plan.textWeight, t) + term(plan.vectorWeight, v),
    }))
    .sort((a, b) => b.fused - a.fused || (a.chunk_id < b.chunk_id ? -1 : a.chunk_id > b.chunk_id ? 1 : 0))
    .slice(0, plan.topK);
}

@Injectable()
export class SearchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Native PostgreSQL (half-precision embedding indexes); PGlite connects without a URL (float4 indexes). */
  private get native(): boolean {
    return Boolean((this.dataSource.options as { url?: string }).url);
  }

  /**
   * The statement for the branches the search type needs (the keyword terms from `keywordTerms`,
   * read beforehand by the caller, or here when not given): one round trip, or with `parallel` (hybrid, native) each
   * branch on its own pooled connection at the same time, fused here exactly as the one statement
   * fuses, then one round trip for the top_k rows. No transaction: the HNSW settings live on the
   * connection (see withHnsw).
   */
  async search(
    plan: SearchPlan,
    keywordTerms?: KeywordTerms | null,
    options: { parallel?: boolean } = {},
  ): Promise<SearchRow[]> {
    const terms =
      keywordTerms !== undefined
        ? keywordTerms
        : plan.searchType !== 'vector' && plan.keywordQuery !== null
          ? await this.keywordTerms(plan)
          : null;
    const useText = plan.searchType !== 'vector' && terms !== null;
    const useVector = plan.searchType !== 'text' && plan.vector !== null && plan.model !== null;
    if (!useText && !useVector) return [];
    if (!useVector) return this.dataSource.query<SearchRow[]>(...this.statement(plan, terms, false));
    if (useText && options.parallel) return this.parallelHybrid(plan, terms);
    return this.withHnsw(plan, (query, bound) =>
      query<SearchRow[]>(...this.statement(plan, useText ? terms : null, bound)),
    );
  }

  /**
   * Runs `fn` on one pooled connection that carries the vector branch's HNSW settings: iterative
   * scans (pgvector 0.8: keep scanning the graph until enough rows pass the filters) and ef_search
   * from the candidates. On native each connection keeps them for its session and remembers them,
   * so a search pays the round trip only when a connection has not been given them yet (they were
   * a transaction's, at three round trips per search: BEGIN, set_config, COMMIT). Only the vector
   * branch reads these settings. Embedded: one session shared by every connection, so they are set
   * on each use (still no transaction).
   */
  private async withHnsw<T>(
    plan: SearchPlan,
    fn: (query: <R>(sql: string, params: unknown[]) => Promise<R>, bound: number | null) => Promise<T>,
  ): Promise<T> {
    const efSearch = String(Math.min(1000, Math.max(plan.efSearch ?? 40, plan.candidates)));
    const runner = this.dataSource.createQueryRunner('master');
    try {
      const client = (await runner.connect()) as HnswClient;
      const embedded = !(this.dataSource.options as { url?: string }).url;
      // The bound of the model's bulk-loaded index (none before a bulk load) moves with every bulk build:
      // read with the active model by the caller, else here, with the settings when those are needed.
      let bound = plan.segmentBound;
      const boundSql = `(SELECT serving_bound FROM chunk_embedding_segments WHERE model = $1) AS bound`;
      if (embedded || client.opsHnswEfSearch !== efSearch) {
        client.opsHnswEfSearch = undefined;
        const [row] = (await runner.query(
          `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false), set_config('hnsw.ef_search', $2, false), ${boundSql}`,
          [plan.model, efSearch],
        )) as Array<{ bound: number | null }>;
        client.opsHnswEfSearch = efSearch;
        bound ??= row?.bound ?? null;
      } else if (bound === undefined) {
        const [row] = (await runner.query(`SELECT ${boundSql}`, [plan.model])) as Array<{
          bound: number | null;
        }>;
        bound = row?.bound ?? null;
      }
      return await fn(
        <R>(sql: string, params: unknown[]) => runner.query(sql, params) as Promise<R>,
        bound ?? null,
      );
    } finally {
      await runner.release();
    }
  }

  /** Hybrid with each branch on its own connection at once; the fusion and order of `statement`. */
  private async parallelHybrid(plan: SearchPlan, terms: KeywordTerms): Promise<SearchRow[]> {
    const [text, vector] = await Promise.all([
      this.dataSource.query<BranchRow[]>(...this.branchStatement(plan, terms, 'text')),
      this.withHnsw(plan, (query, bound) =>
        query<BranchRow[]>(...this.branchStatement(plan, null, 'vector', bound)),
      ),
    ]);
    const fused = fuseBranches(plan, text, vector);
    if (fused.length === 0) return [];
    const rows = await this.dataSource.query<
      Array<Omit<SearchRow, 'text_rank' | 'text_score' | 'vector_rank' | 'vector_score' | 'fused'>>
    >(
      `SELECT c.id AS chunk_id, c.document_id, d.filename AS document_name, c.text, c.chunk_index, c.page_number,
              c.slide_number, c.chunk_type
       FROM document_chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.id = ANY($1::uuid[]) AND c.tenant_id = $2`,
      [fused.map((f) => f.chunk_id), plan.tenantId],
    );
    const byId = new Map(rows.map((r) => [r.chunk_id, r]));
    return fused.flatMap((f) => {
      const row = byId.get(f.chunk_id);
      return row ? [{ ...row, ...f }] : [];
    });
  }

  /** One branch's ranked candidates (chunk, score, rank, norm), for parallelHybrid. */
  private branchStatement(
    plan: SearchPlan,
    terms: KeywordTerms | null,
    branch: 'text' | 'vector',
    bound: number | null = null,
  ): [string, unknown[]] {
    const p = new Params();
    const tenant = p.add(plan.tenantId);
    const cte =
      branch === 'text'
        ? keywordBranchSql(plan, terms!, p, filterSql(plan, p, tenant))
        : vectorBranchSql(plan, p, filterSql(plan, p, tenant), bound, this.native);
    return [`WITH ${cte} SELECT chunk_id, score, rank, norm FROM ${branch}_ranked`, p.values];
  }

  /** The query's terms with their IDF and the candidate query, or null when no term is in the corpus. */
  async keywordTerms(plan: SearchPlan): Promise<KeywordTerms | null> {
    const [row]: Array<{
      terms: string[];
      idfs: number[];
      candidate_query: string | null;
      avgdl: number | null;
      missing: number | string | null;
    }> = await this.dataSource.query(KEYWORD_TERMS_SQL, [
      plan.tenantId,
      plan.keywordQuery,
      plan.keywordBudget,
    ]);
    if (!row || row.terms.length === 0 || row.candidate_query === null) return null;
    const idfs = row.idfs.map(Number);
    const meanIdf = idfs.reduce((sum, idf) => sum + idf, 0) / idfs.length;
    return {
      terms: row.terms,
      idfs,
      candidateQuery: row.candidate_query,
      avgdl: Number(row.avgdl),
      missingIdf: Math.max(0, Number(row.missing ?? 0)) * meanIdf,
    };
  }

  /**
   * One statement for every search type: the branches the search uses, fused; with its parameters.
   * `segmentBound`: false for no vector branch, else the model's bulk segment bound (null: none).
   */
  private statement(
    plan: SearchPlan,
    terms: KeywordTerms | null,
    segmentBound: number | null | false,
  ): [string, unknown[]] {
    const useVector = segmentBound !== false;
    const p = new Params();
    const tenant = p.add(plan.tenantId);
    const useText = terms !== null;
    const ctes: string[] = [];
    if (useText) ctes.push(keywordBranchSql(plan, terms, p, filterSql(plan, p, tenant)));
    if (segmentBound !== false)
      ctes.push(vectorBranchSql(plan, p, filterSql(plan, p, tenant), segmentBound, this.native));
    const k = plan.fusion === 'convex' ? '' : `${p.add(plan.rrfK)}::float8`;
    // RRF: weight / (k + rank). Convex: weight * the branch score scaled to [0, 1] (text: BM25 over this
    // query's best candidate; vector: cosine similarity as is, so near-ties stay near-ties).
    const term = (weight: number, alias: 't' | 'v') =>
      plan.fusion === 'convex'
        ? `COALESCE(${p.add(weight)}::float8 * ${alias}.norm, 0)`
        : `COALESCE(${p.add(weight)}::float8 / (${k} + ${alias}.rank), 0)`;
    const textTerm = useText ? term(plan.textWeight, 't') : '0';
    const vectorTerm = useVector ? term(plan.vectorWeight, 'v') : '0';
    const from =
      useText && useVector
        ? 'text_ranked t FULL OUTER JOIN vector_ranked v ON v.chunk_id = t.chunk_id'
        : useText
          ? 'text_ranked t'
          : 'vector_ranked v';
    const sql = `WITH ${ctes.join(',\n')},
    fused AS (
      SELECT COALESCE(${useText ? 't.chunk_id' : 'NULL'}, ${useVector ? 'v.chunk_id' : 'NULL'}) AS chunk_id,
             ${useText ? 't.rank' : 'NULL::bigint'} AS text_rank, ${useText ? 't.score' : 'NULL::float8'} AS text_score,
             ${useVector ? 'v.rank' : 'NULL::bigint'} AS vector_rank, ${useVector ? 'v.score' : 'NULL::float8'} AS vector_score,
             ${textTerm} + ${vectorTerm} AS fused
      FROM ${from}
      ORDER BY 6 DESC, 1
      LIMIT ${p.add(plan.topK)}
    )
    SELECT f.chunk_id, c.document_id, d.filename AS document_name, c.text, c.chunk_index, c.page_number, c.slide_number,
           c.chunk_type, f.text_rank, f.text_score, f.vector_rank, f.vector_score, f.fused
    FROM fused f
    JOIN document_chunks c ON c.id = f.chunk_id
    JOIN documents d ON d.id = c.document_id
    WHERE c.tenant_id = ${tenant}
    ORDER BY f.fused DESC, f.chunk_id`;
    return [sql, p.values];
  }
}
