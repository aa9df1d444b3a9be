/**
 * What kind of failure an exception is. Libraries pick a kind; the HTTP layer alone decides
 * which status code a kind becomes.
 */
export enum ErrorKind {
  INVALID_INPUT = 'INVALID_INPUT',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  CONFLICT = 'CONFLICT',
  /** The resource existed but is gone for good (an expired confirmation). */
  GONE = 'GONE',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED = 'RATE_LIMITED',
  UNAVAILABLE = 'UNAVAILABLE',
  INTERNAL = 'INTERNAL',
}

/** Base class of every coded exception a library throws. `code` is stable and machine-readable. */
export class AppException extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export enum PlatformExceptionCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  PAYLOAD_TOO_DEEP = 'PAYLOAD_TOO_DEEP',
  INVALID_CHARACTERS = 'INVALID_CHARACTERS',
  INVALID_DATA = 'INVALID_DATA',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  TENANT_NOT_FOUND = 'TENANT_NOT_FOUND',
  TENANT_EXISTS = 'TENANT_EXISTS',
  API_KEY_NOT_FOUND = 'API_KEY_NOT_FOUND',
  API_KEY_LIMIT_REACHED = 'API_KEY_LIMIT_REACHED',
  DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE',
  BOOTSTRAP_KEY_UNDELIVERABLE = 'BOOTSTRAP_KEY_UNDELIVERABLE',
  DATA_DIR_LOCKED = 'DATA_DIR_LOCKED',
  PGVECTOR_MISSING = 'PGVECTOR_MISSING',
  DATABASE_ROLE_MISCONFIGURED = 'DATABASE_ROLE_MISCONFIGURED',
  SECRET_NOT_FOUND = 'SECRET_NOT_FOUND',
  SECRET_REF_UNRESOLVABLE = 'SECRET_REF_UNRESOLVABLE',
  SECRETS_KEY_MISSING = 'SECRETS_KEY_MISSING',
}

export class PlatformException extends AppException {
  constructor(code: PlatformExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }
}
