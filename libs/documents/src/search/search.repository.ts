import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ChunkType, DocumentSearchFilters, SearchType } from '../documents.types';
import { sqlLiteral, toVectorLiteral } from '../ingestion/chunks.repository';

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
  rrfK: number;
  textWeight: number;
  vectorWeight: number;
  minRelevance: number;
  filters: DocumentSearchFilters;
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
  return parts.join(' AND ');
}

/**
 * The keyword branch: candidates matching the stored tsvector, scored in [0, 1). Kept as one
 * function so a different scorer (BM25 with corpus statistics) replaces only this text.
 */
function keywordBranchSql(plan: SearchPlan, p: Params, filters: string): string {
  const query = p.add(plan.keywordQuery);
  return `text_hits AS (
    SELECT c.id AS chunk_id, ts_rank_cd(c.search_vector, q.query, 32) AS score
    FROM document_chunks c
    JOIN documents d ON d.id = c.document_id
    CROSS JOIN websearch_to_tsquery('english', ${query}) AS q(query)
    WHERE c.search_vector @@ q.query AND ${filters}
    ORDER BY score DESC, c.id
    LIMIT ${p.add(plan.candidates)}
  ),
  text_ranked AS (
    SELECT chunk_id, score, row_number() OVER (ORDER BY score DESC, chunk_id) AS rank
    FROM text_hits WHERE score >= ${p.add(plan.minRelevance)}
  )`;
}

/** The vector branch: HNSW cosine over this model's partial index, iterative scans keep filters honest. */
function vectorBranchSql(plan: SearchPlan, p: Params, filters: string): string {
  const dims = Number(plan.dimensions);
  const vector = `${p.add(toVectorLiteral(plan.vector!))}::vector(${dims})`;
  return `vector_hits AS (
    SELECT e.chunk_id, (e.embedding::vector(${dims})) <=> ${vector} AS distance
    FROM chunk_embeddings e
    WHERE e.model = ${sqlLiteral(plan.model!)} AND e.tenant_id = ${p.add(plan.tenantId)}
      AND EXISTS (
        SELECT 1 FROM document_chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id = e.chunk_id AND ${filters})
    ORDER BY (e.embedding::vector(${dims})) <=> ${vector}
    LIMIT ${p.add(plan.candidates)}
  ),
  vector_ranked AS (
    SELECT chunk_id, 1 - distance AS score, row_number() OVER (ORDER BY distance, chunk_id) AS rank
    FROM vector_hits WHERE 1 - distance >= ${p.add(plan.minRelevance)}
  )`;
}

@Injectable()
export class SearchRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One statement for every search type: the branches the type needs, each with the same tenant
   * and filters, fused with weighted Reciprocal Rank Fusion: sum(weight / (k + rank)).
   */
  async search(plan: SearchPlan): Promise<SearchRow[]> {
    const p = new Params();
    const tenant = p.add(plan.tenantId);
    const useText = plan.searchType !== 'vector' && plan.keywordQuery !== null;
    const useVector = plan.searchType !== 'text' && plan.vector !== null && plan.model !== null;
    if (!useText && !useVector) return [];
    const ctes: string[] = [];
    if (useText) ctes.push(keywordBranchSql(plan, p, filterSql(plan, p, tenant)));
    if (useVector) ctes.push(vectorBranchSql(plan, p, filterSql(plan, p, tenant)));
    const k = p.add(plan.rrfK);
    const textTerm = useText ? `COALESCE(${p.add(plan.textWeight)}::float8 / (${k} + t.rank), 0)` : '0';
    const vectorTerm = useVector ? `COALESCE(${p.add(plan.vectorWeight)}::float8 / (${k} + v.rank), 0)` : '0';
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
    )
    SELECT f.chunk_id, c.document_id, d.filename AS document_name, c.text, c.chunk_index, c.page_number, c.slide_number,
           c.chunk_type, f.text_rank, f.text_score, f.vector_rank, f.vector_score, f.fused
    FROM fused f
    JOIN document_chunks c ON c.id = f.chunk_id
    JOIN documents d ON d.id = c.document_id
    WHERE c.tenant_id = ${tenant}
    ORDER BY f.fused DESC, f.chunk_id
    LIMIT ${p.add(plan.topK)}`;
    if (!useVector) return this.dataSource.query(sql, p.values);
    return this.dataSource.transaction(async (em) => {
      // pgvector 0.8: keep scanning the HNSW graph until enough rows pass the filters.
      await em.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      await em.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, plan.candidates))}`);
      return em.query<SearchRow[]>(sql, p.values);
    });
  }
}
