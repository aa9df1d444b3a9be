import { AppException, ErrorKind } from '@app/platform';

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

/** What a 429 for a full ingestion queue tells the client to wait (an upload takes about this long). */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

export class DocumentsException extends AppException {
  constructor(code: DocumentsExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static notFound(id: string): DocumentsException {
    return new DocumentsException(
      DocumentsExceptionCode.DOCUMENT_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Document ${id} does not exist in this tenant.`,
      { document_id: id },
    );
  }

  /** Code documents follow their repository: /internal/v1/diffs/apply changes them, nothing else. */
  static managedByCode(id: string): DocumentsException {
    return new DocumentsException(
      DocumentsExceptionCode.DOCUMENT_MANAGED_BY_CODE,
      ErrorKind.CONFLICT,
      `Document ${id} is a code file indexed from a repository; change it through POST /internal/v1/diffs/apply, not /api/documents.`,
      { document_id: id },
    );
  }

  /** The tenant's queued ingestion is at its cap: a 429 the client retries once some of it is done. */
  static queueFull(limit: { key: string; limit: number; observed: number }): DocumentsException {
    const what =
      limit.key === 'DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT' ? 'bytes of uploads' : 'ingestion jobs';
    return new DocumentsException(
      DocumentsExceptionCode.DOCUMENTS_QUEUE_FULL,
      ErrorKind.RATE_LIMITED,
      `This tenant would have ${limit.observed} ${what} queued or running; the limit is ${limit.limit} (${limit.key}). Retry once some of them are done.`,
      { limit, retry_after_seconds: QUEUE_FULL_RETRY_AFTER_SECONDS },
    );
  }

  static invalidSearch(message: string, details?: unknown): DocumentsException {
    return new DocumentsException(
      DocumentsExceptionCode.INVALID_SEARCH_REQUEST,
      ErrorKind.INVALID_INPUT,
      message,
      details,
    );
  }
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
