import { AppException, ErrorKind } from '@app/platform';

export enum CodeExceptionCode {
  INVALID_DIFF = 'INVALID_DIFF',
  HUNK_DOES_NOT_APPLY = 'HUNK_DOES_NOT_APPLY',
  BEFORE_DOES_NOT_MATCH = 'BEFORE_DOES_NOT_MATCH',
  DIFF_TOO_LARGE = 'DIFF_TOO_LARGE',
  DIFF_NOT_FOUND = 'DIFF_NOT_FOUND',
  REPOSITORY_NOT_FOUND = 'REPOSITORY_NOT_FOUND',
  SYMBOL_NOT_FOUND = 'SYMBOL_NOT_FOUND',
  FILE_NOT_FOUND = 'FILE_NOT_FOUND',
}

export class CodeException extends AppException {
  constructor(code: CodeExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static invalid(message: string, details?: unknown): CodeException {
    return new CodeException(CodeExceptionCode.INVALID_DIFF, ErrorKind.INVALID_INPUT, message, details);
  }

  static notFound(code: CodeExceptionCode, what: string, id: string): CodeException {
    return new CodeException(code, ErrorKind.NOT_FOUND, `${what} ${id} was not found.`, { id });
  }
}
