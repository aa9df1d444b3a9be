import { AppException, ErrorKind } from '@app/platform';

export enum PendingActionExceptionCode {
  ACTION_NOT_FOUND = 'ACTION_NOT_FOUND',
  ACTION_NOT_PENDING = 'ACTION_NOT_PENDING',
  ACTION_EXPIRED = 'ACTION_EXPIRED',
}

export class PendingActionException extends AppException {
  constructor(code: PendingActionExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static notFound(id: string): PendingActionException {
    return new PendingActionException(
      PendingActionExceptionCode.ACTION_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Action ${id} does not exist.`,
      { action_id: id },
    );
  }

  static notPending(id: string, status: string): PendingActionException {
    return new PendingActionException(
      PendingActionExceptionCode.ACTION_NOT_PENDING,
      ErrorKind.CONFLICT,
      `Action ${id} is ${status}, not pending: it can no longer be confirmed or rejected.`,
      { action_id: id, status },
    );
  }

  static expired(id: string, expiresAt: Date): PendingActionException {
    return new PendingActionException(
      PendingActionExceptionCode.ACTION_EXPIRED,
      ErrorKind.GONE,
      `Action ${id} expired at ${expiresAt.toISOString()} without a decision: it can no longer be confirmed or rejected.`,
      { action_id: id, status: 'expired', expires_at: expiresAt.toISOString() },
    );
  }
}
