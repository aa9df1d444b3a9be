import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigDoc, emptyToUndefined, toBoolean, toNumber } from '@app/platform/config';

/**
 * The documents lib's keys: uploads, parsing budgets, the ingestion queue, search and embeddings.
 */
export class DocumentsConfig {
  @ConfigDoc('largest upload (413 beyond)', '`20971520` (20 MiB)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

  @ConfigDoc('structure-aware chunking: target chunk size in characters')
  @Transform(toNumber)
  @IsInt()
  @Min(200)
  DOCUMENTS_CHUNK_TARGET_CHARS = 1200;

  @ConfigDoc('structure-aware chunking: overlap between chunks in characters')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_CHUNK_OVERLAP_CHARS = 150;

  @ConfigDoc('chunks per document; more fails the document (`DOCUMENT_BUDGET_EXCEEDED`, not retried)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_MAX_CHUNKS = 20_000;

  // Parsing budgets (decompression bombs): see libs/documents/src/parsing/parse-budget.ts
  @ConfigDoc('decompression budget of office files: entries of one archive')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_PARSE_MAX_ZIP_ENTRIES = 10_000;

  @ConfigDoc('decompression budget: bytes of one archive entry', '`52428800` (50 MiB)')
  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  DOCUMENTS_PARSE_MAX_ENTRY_BYTES = 50 * 1024 * 1024;

  @ConfigDoc('decompression budget: bytes of one archive expanded', '`104857600` (100 MiB)')
  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  DOCUMENTS_PARSE_MAX_EXPANDED_BYTES = 100 * 1024 * 1024;

  @ConfigDoc('decompression budget: largest expanded/compressed ratio')
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  DOCUMENTS_PARSE_MAX_RATIO = 200;

  @ConfigDoc('pages of one PDF')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_PARSE_MAX_PDF_PAGES = 5_000;

  @ConfigDoc('characters of text one file may give')
  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  DOCUMENTS_PARSE_MAX_TEXT_CHARS = 20_000_000;

  @ConfigDoc('ingestion jobs this process runs at once (`0`: leave the queue to other processes)')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(16)
  DOCUMENTS_WORKER_CONCURRENCY = 2;

  /**
   * A tenant's queue depth (ingest jobs queued or running) from which the worker takes the bulk path
   * on the native server: vectors by binary COPY outside the serving HNSW index, one index build after
   * the batch (0: only `ingest --bulk` uses it).
   */
  @ConfigDoc(
    'native: a tenant queue this deep (ingest jobs queued or running) takes the bulk path (COPY, one HNSW build after the batch; see [Bulk ingestion](api-documents.md#bulk-ingestion)); `0`: only `ingest --bulk`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_BULK_MIN_QUEUED_JOBS = 50;

  @ConfigDoc('`maintenance_work_mem` of the HNSW build after a bulk load')
  @Matches(/^[0-9]{1,6}(kB|MB|GB)$/, { message: 'must be a size such as 256MB' })
  DOCUMENTS_BULK_MAINTENANCE_WORK_MEM = '256MB';

  @ConfigDoc('parallel workers of the HNSW build after a bulk load')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(64)
  DOCUMENTS_BULK_INDEX_WORKERS = 2;

  /**
   * Ingestion jobs one tenant may run at once across the cluster (0: no cap). With the default, a
   * tenant's burst of uploads takes one worker slot and leaves the others to other tenants.
   */
  @ConfigDoc(
    "ingestion jobs one tenant runs at once across the cluster (`0`: no cap): a tenant's burst leaves the other worker slots to other tenants, which are served round-robin",
  )
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_JOB_MAX_RUNNING_PER_TENANT = 1;

  @ConfigDoc(
    'uploads one tenant may have queued or running; past it, 429 `DOCUMENTS_QUEUE_FULL` with `Retry-After`',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT = 100;

  @ConfigDoc(
    "bytes of uploads one tenant may have queued or running; past it, 429 `DOCUMENTS_QUEUE_FULL` with `Retry-After` (a code file's chunks are capped by the diff queue instead)",
    '`209715200` (200 MiB)',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT = 200 * 1024 * 1024;

  @ConfigDoc("a claimed ingestion job's lease (renewed by a heartbeat)")
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  DOCUMENTS_JOB_LEASE_SECONDS = 60;

  @ConfigDoc('attempts of an ingestion job before `failed`')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_JOB_MAX_ATTEMPTS = 3;

  @ConfigDoc('retry backoff base of a failed ingestion job')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_JOB_RETRY_BASE_SECONDS = 10;

  @ConfigDoc('how often expired leases are reclaimed')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_RECOVERY_INTERVAL_SECONDS = 300;

  @ConfigDoc('how long finished ingestion jobs are kept')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_JOB_RETENTION_DAYS = 7;

  @ConfigDoc('how long soft-deleted documents are kept')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_DELETED_RETENTION_DAYS = 30;

  @ConfigDoc('largest `top_k` of a search (400 beyond)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(1000)
  DOCUMENTS_SEARCH_MAX_TOP_K = 100;

  @ConfigDoc('candidates each branch gives the hybrid fusion')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(2000)
  DOCUMENTS_SEARCH_CANDIDATES = 100;

  @ConfigDoc('the `k` of reciprocal rank fusion')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_SEARCH_RRF_K = 60;

  @ConfigDoc("the keyword branch's weight when a search does not say (tuned: BENCHMARKS.md)")
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  DOCUMENTS_SEARCH_TEXT_WEIGHT = 1;

  @ConfigDoc("the vector branch's weight when a search does not say (tuned: BENCHMARKS.md)")
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  DOCUMENTS_SEARCH_VECTOR_WEIGHT = 0.2;

  @ConfigDoc('largest query of a search (400 beyond)')
  @Transform(toNumber)
  @IsInt()
  @Min(2)
  DOCUMENTS_SEARCH_MAX_QUERY_CHARS = 2000;

  @ConfigDoc('how long search results are cached')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = 300;

  @ConfigDoc('how long query embeddings are cached')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  DOCUMENTS_QUERY_EMBEDDING_CACHE_TTL_SECONDS = 86_400;

  // Documents hybrid fusion method and keyword branch (BM25) parameters, tuned on SciFact train (BENCHMARKS.md).
  @ConfigDoc(
    'hybrid fusion when a search does not ask: `convex` or `rrf`; why convex stays the default: BENCHMARKS.md "Fusion: RRF and convex"',
  )
  @IsIn(['rrf', 'convex'])
  DOCUMENTS_SEARCH_FUSION: 'rrf' | 'convex' = 'convex';

  @ConfigDoc('BM25 `k1` of the keyword branch')
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(10)
  DOCUMENTS_SEARCH_BM25_K1 = 0.9;

  @ConfigDoc('BM25 `b` of the keyword branch')
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  DOCUMENTS_SEARCH_BM25_B = 0.4;

  /**
   * Postings the keyword branch reads in total to find its candidates, rarest query terms first
   * (the rarest is always read); every query term still scores every candidate. Bounds a keyword
   * search's cost on a large corpus (BENCHMARKS.md has the quality and latency figures behind the
   * default).
   */
  @ConfigDoc('postings the keyword branch reads in total, rarest query terms first (bounds its cost)')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_SEARCH_KEYWORD_BUDGET = 1000;

  /**
   * Native PostgreSQL, true: a hybrid search runs its keyword and vector branches on two pooled
   * connections at the same time and fuses them in the process (same scores and order as the one
   * statement), while few searches are in flight (DOCUMENTS_SEARCH_PARALLEL_MAX_IN_FLIGHT); false:
   * one statement. Embedded always uses one statement (one connection). Off by default: BENCHMARKS.md
   * (issue 28, the quiet 100k run) has the figures.
   */
  @ConfigDoc(
    'native PostgreSQL, `true`: a hybrid search runs its keyword and vector branches on two pooled connections at once and fuses them in the process (same results as one statement) while few searches are in flight (next key); `false`: one statement. Embedded always uses one statement. Off by default: at 100k chunks it lowered hybrid p95 at concurrency 1 (27-31 vs 34-39 ms) but concurrency-8 runs after it were 1.8x slower, not yet explained (BENCHMARKS.md, issue 28)',
  )
  @Transform(toBoolean)
  @IsBoolean()
  DOCUMENTS_SEARCH_PARALLEL_BRANCHES = false;

  /**
   * The parallel hybrid applies while at most this many searches of the process are being computed,
   * this one included; above it a search uses one statement.
   */
  @ConfigDoc(
    'the parallel hybrid applies while at most this many searches of the process are being computed (this one included); above it each search uses one statement, so a busy pool is not asked for two connections per search',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  DOCUMENTS_SEARCH_PARALLEL_MAX_IN_FLIGHT = 2;

  /**
   * The vector branch's HNSW `ef_search` floor: a search explores max(this, candidates) graph
   * nodes (pgvector's cap: 1,000). Higher finds more of the exact nearest neighbours for more
   * latency; BENCHMARKS.md "Vector branch: recall against exact search" has the sweep.
   */
  @ConfigDoc(
    'the vector branch\'s HNSW `ef_search` floor: a search explores max(this, candidates) graph nodes (at most 1,000); higher finds more of the exact nearest neighbours for more latency. Sweep: BENCHMARKS.md "Vector branch: recall against exact search"',
  )
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(1000)
  DOCUMENTS_SEARCH_HNSW_EF_SEARCH = 40;

  @ConfigDoc(
    'any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, TEI) ([embeddings](api-documents.md))',
    'unset (offline `hash-v1-1024`)',
  )
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  EMBEDDINGS_BASE_URL?: string;

  @ConfigDoc("the embeddings endpoint's key", 'unset')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  EMBEDDINGS_API_KEY?: string;

  @ConfigDoc("the embeddings endpoint's model", 'unset')
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  EMBEDDINGS_MODEL?: string;

  @ConfigDoc("the remote model's vector size", 'unset (probed with one request)')
  @Transform(toNumber)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16_000)
  EMBEDDINGS_DIMENSIONS?: number;

  @ConfigDoc('texts per embeddings request')
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(2048)
  EMBEDDINGS_BATCH_SIZE = 64;

  @ConfigDoc('per-request timeout of the embeddings endpoint')
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  EMBEDDINGS_TIMEOUT_MS = 30_000;

  @ConfigDoc('retries of an embeddings request')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10)
  EMBEDDINGS_MAX_RETRIES = 3;

  @ConfigDoc('backoff base of the embeddings retries')
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  EMBEDDINGS_RETRY_BASE_MS = 500;
}
