export const DOCUMENT_STATUSES = ['queued', 'processing', 'done', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const DOCUMENT_FORMATS = ['text', 'markdown', 'html', 'csv', 'pdf', 'docx', 'pptx', 'xlsx'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** How hybrid search merges its branches: weighted RRF over ranks, or a weighted sum of normalised scores. */
export const FUSION_METHODS = ['rrf', 'convex'] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];

export const CHUNK_TYPES = ['text', 'table', 'image', 'mixed'] as const;
export type ChunkType = (typeof CHUNK_TYPES)[number];

export const SEARCH_TYPES = ['text', 'vector', 'hybrid'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export type DocumentMetadata = Record<string, unknown>;

/** A document as the API and other libraries see it. */
export interface DocumentView {
  id: string;
  tenant_id: string;
  user_id: string;
  filename: string;
  content_type: string;
  format: DocumentFormat;
  size: number;
  status: DocumentStatus;
  processing_progress: number;
  total_chunks: number;
  chunk_version: number;
  source_hash: string;
  doc_metadata: DocumentMetadata;
  error_details: DocumentErrorDetails | null;
  /** Manual retries after a failure (POST /api/documents/:id/retry). */
  retry_count: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /**
   * Set on `POST /api/documents` when the tenant already has a live document with this filename and identical
   * content: that document is returned (200) and nothing is queued.
   */
  deduplicated?: true;
}

export interface DocumentErrorDetails {
  code: string;
  message: string;
  attempts: number;
  retryable: boolean;
  failed_at: string;
  /** For DOCUMENT_BUDGET_EXCEEDED: which limit was hit. */
  limit?: { key: string; limit: number; observed: number };
}

/** A failed ingestion or re-embed job: the dead-letter view. */
export interface DeadLetterJobView {
  job_id: string;
  kind: 'ingest' | 'reembed';
  document_id: string | null;
  filename: string | null;
  revision: number | null;
  target_model: string | null;
  attempts: number;
  max_attempts: number;
  /** True when it failed after its last allowed attempt; false when the failure was not retryable. */
  exhausted_retries: boolean;
  error_details: Record<string, unknown> | null;
  /** Whether POST /api/documents/:id/retry can resubmit the kept bytes. */
  retryable_by_api: boolean;
  created_at: string;
  finished_at: string | null;
  resolved_at: string | null;
  resolution: 'retried' | 'replaced' | 'dismissed' | null;
}

export interface DeadLetterPage {
  items: DeadLetterJobView[];
  total: number;
  limit: number;
  offset: number;
}

export interface DocumentRetryOutcome {
  retried: string[];
  skipped: Array<{ document_id: string; code: string; message: string }>;
  /** Failed documents beyond this call's batch; call again to retry them. */
  remaining: number;
}

export interface DocumentChunkView {
  chunk_id: string;
  document_id: string;
  chunk_index: number;
  chunk_version: number;
  chunk_type: ChunkType;
  text: string;
  page_number: number | null;
  slide_number: number | null;
  position_in_doc: number;
  table_data: TableData | null;
  source_hash: string;
  embedding_models: string[];
}

export interface TableData {
  header: string[];
  rows: string[][];
  /** Row numbers (1-based, header excluded) of the first and last row in this piece. */
  row_range: [number, number];
  sheet?: string;
}

/** Input for creating or replacing a document's content programmatically. */
export interface DocumentInput {
  filename: string;
  content: Buffer | string;
  contentType?: string;
  metadata?: DocumentMetadata;
  userId?: string;
}

export interface DocumentListQuery {
  status?: DocumentStatus;
  format?: DocumentFormat;
  contentType?: string;
  filename?: string;
  metadata?: DocumentMetadata;
  includeDeleted?: boolean;
  limit?: number;
  offset?: number;
}

export interface DocumentPage {
  items: DocumentView[];
  total: number;
  limit: number;
  offset: number;
}

export interface DocumentSearchFilters {
  document_ids?: string[];
  content_types?: string[];
  chunk_types?: ChunkType[];
  metadata?: DocumentMetadata;
  created_after?: string;
  created_before?: string;
}

export interface DocumentSearchRequest {
  query: string;
  search_type?: SearchType;
  top_k?: number;
  /** See docs/api-documents.md "What `min_relevance` means": a floor on the returned `relevance_score` (for hybrid, the fused score, as in the seed). */
  min_relevance?: number;
  /** A floor on each branch's own score (BM25 fraction, cosine), applied inside the branch before fusion. */
  min_branch_relevance?: number;
  filters?: DocumentSearchFilters;
  /** Hybrid fusion (default from config): `rrf` (ranks) or `convex` (normalised scores). */
  fusion?: FusionMethod;
  /** RRF constant k (default from config). */
  rrf_k?: number;
  /** Candidates each branch contributes before fusion. */
  candidates?: number;
  weights?: { text?: number; vector?: number };
}

export interface BranchHit {
  rank: number;
  score: number;
}

export interface DocumentSearchResult {
  rank: number;
  chunk_id: string;
  document_id: string;
  document_name: string;
  chunk_text: string;
  chunk_index: number;
  page_number: number | null;
  slide_number: number | null;
  chunk_type: ChunkType;
  relevance_score: number;
  snippet: string;
  branches: { text: BranchHit | null; vector: BranchHit | null };
}

export interface DocumentSearchResponse {
  status: 'ok';
  query: string;
  search_type: SearchType;
  results_count: number;
  results: DocumentSearchResult[];
  embedding_model: string | null;
  cached: boolean;
  warnings: string[];
  execution_time_ms: number;
}
