import { AppException, ErrorKind } from '@app/platform';
import { DocumentsExceptionCode } from './document-errors';

export {
  DocumentsExceptionCode,
  DocumentProcessingError,
  DocumentBudgetError,
  type DocumentBudgetLimit,
} from './document-errors';

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
