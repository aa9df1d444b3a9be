// The documents module's error codes and the parser's errors, apart from documents.exception.ts: they
// import nothing from the platform, so the parser thread (parsing/parse-thread.ts) loads only the parser.

export enum DocumentsExceptionCode {
  DOCUMENT_NOT_FOUND = 'DOCUMENT_NOT_FOUND',
  UNSUPPORTED_DOCUMENT_TYPE = 'UNSUPPORTED_DOCUMENT_TYPE',
  DOCUMENT_TOO_LARGE = 'DOCUMENT_TOO_LARGE',
  INVALID_DOCUMENT_INPUT = 'INVALID_DOCUMENT_INPUT',
  INVALID_SEARCH_REQUEST = 'INVALID_SEARCH_REQUEST',
  EMBEDDINGS_UNAVAILABLE = 'EMBEDDINGS_UNAVAILABLE',
  /** Retry asked for a document whose ingestion has not failed. */
  DOCUMENT_NOT_FAILED = 'DOCUMENT_NOT_FAILED',
  /** Retry asked for a failure whose bytes are gone (failed before they were kept): upload it again. */
  DOCUMENT_CONTENT_UNAVAILABLE = 'DOCUMENT_CONTENT_UNAVAILABLE',
  DOCUMENT_JOB_NOT_FOUND = 'DOCUMENT_JOB_NOT_FOUND',
  /** A change asked through /api/documents for a code document, which only diff application changes. */
  DOCUMENT_MANAGED_BY_CODE = 'DOCUMENT_MANAGED_BY_CODE',
  /** The tenant has as much ingestion queued as DOCUMENTS_MAX_QUEUED_*_PER_TENANT allows (429). */
  DOCUMENTS_QUEUE_FULL = 'DOCUMENTS_QUEUE_FULL',
  /** Failures recorded on a document (error_details.code), never thrown to a client. */
  DOCUMENT_ENCRYPTED = 'DOCUMENT_ENCRYPTED',
  DOCUMENT_CORRUPT = 'DOCUMENT_CORRUPT',
  DOCUMENT_EMPTY = 'DOCUMENT_EMPTY',
  /** A parsing or chunking budget (DOCUMENTS_PARSE_*, DOCUMENTS_MAX_CHUNKS) was exceeded. */
  DOCUMENT_BUDGET_EXCEEDED = 'DOCUMENT_BUDGET_EXCEEDED',
  INGESTION_FAILED = 'INGESTION_FAILED',
  LEASE_LOST = 'LEASE_LOST',
}

/**
 * A document that cannot be processed. `retryable: false` (corrupt, encrypted, empty) fails the
 * document at once: retrying the same bytes cannot succeed.
 */
export class DocumentProcessingError extends Error {
  constructor(
    readonly code: DocumentsExceptionCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'DocumentProcessingError';
  }
}

/** The budget a document exceeded: the config key, its value, and what was observed when it stopped. */
export interface DocumentBudgetLimit {
  key: string;
  limit: number;
  observed: number;
}

/**
 * A document that would take more memory, CPU or rows than its budget allows (a decompression bomb,
 * a PDF stream that expands without end, more chunks than a document may have). Never retried: the
 * same bytes exceed the same budget every time.
 */
export class DocumentBudgetError extends DocumentProcessingError {
  constructor(
    readonly limit: DocumentBudgetLimit,
    what: string,
  ) {
    super(
      DocumentsExceptionCode.DOCUMENT_BUDGET_EXCEEDED,
      `${what} exceeds the limit ${limit.key}=${limit.limit} (stopped at ${limit.observed}).`,
      false,
    );
    this.name = 'DocumentBudgetError';
  }
}
