import { AppException, ErrorKind } from '@app/platform';

export enum PlannerExceptionCode {
  LLM_NOT_CONFIGURED = 'LLM_NOT_CONFIGURED',
  LLM_TIMEOUT = 'LLM_TIMEOUT',
  LLM_RATE_LIMITED = 'LLM_RATE_LIMITED',
  LLM_UNAVAILABLE = 'LLM_UNAVAILABLE',
  LLM_REQUEST_REJECTED = 'LLM_REQUEST_REJECTED',
  LLM_BAD_RESPONSE = 'LLM_BAD_RESPONSE',
  QUERY_INVALID = 'QUERY_INVALID',
}

export class PlannerException extends AppException {
  constructor(code: PlannerExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }
}

/** Failure of a call to the language model, after any retries. `transient` says a retry might succeed. */
export class LlmException extends PlannerException {
  constructor(
    code: PlannerExceptionCode,
    message: string,
    readonly transient: boolean,
    details?: Record<string, unknown>,
  ) {
    super(code, transient ? ErrorKind.UNAVAILABLE : ErrorKind.INVALID_INPUT, message, details);
  }
}
