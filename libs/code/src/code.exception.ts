import { AppException, ErrorKind } from '@app/platform';

export enum CodeExceptionCode {
  INVALID_DIFF = 'INVALID_DIFF',
  HUNK_DOES_NOT_APPLY = 'HUNK_DOES_NOT_APPLY',
  BEFORE_DOES_NOT_MATCH = 'BEFORE_DOES_NOT_MATCH',
  DIFF_TOO_LARGE = 'DIFF_TOO_LARGE',
  DIFF_NOT_FOUND = 'DIFF_NOT_FOUND',
  /** The tenant has as many diffs or files queued as CODE_MAX_QUEUED_*_PER_TENANT allows (429). */
  DIFF_QUEUE_FULL = 'DIFF_QUEUE_FULL',
  REPOSITORY_NOT_FOUND = 'REPOSITORY_NOT_FOUND',
  SYMBOL_NOT_FOUND = 'SYMBOL_NOT_FOUND',
  FILE_NOT_FOUND = 'FILE_NOT_FOUND',
}

/** What a 429 for a full diff queue tells the client to wait. */
export const DIFF_QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

export class CodeException extends AppException {
  constructor(code: CodeExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static invalid(message: string, details?: unknown): CodeException {
    return new CodeException(CodeExceptionCode.INVALID_DIFF, ErrorKind.INVALID_INPUT, message, details);
  }

  static queueFull(limit: { key: string; limit: number; observed: number }): CodeException {
    const what = limit.key === 'CODE_MAX_QUEUED_FILES_PER_TENANT' ? 'changed files' : 'diffs';
    return new CodeException(
      CodeExceptionCode.DIFF_QUEUE_FULL,
      ErrorKind.RATE_LIMITED,
      `This tenant would have ${limit.observed} ${what} queued or indexing; the limit is ${limit.limit} (${limit.key}). Retry once some of them are indexed.`,
      { limit, retry_after_seconds: DIFF_QUEUE_FULL_RETRY_AFTER_SECONDS },
    );
  }

  static notFound(code: CodeExceptionCode, what: string, id: string): CodeException {
    return new CodeException(code, ErrorKind.NOT_FOUND, `${what} ${id} was not found.`, { id });
  }
}
