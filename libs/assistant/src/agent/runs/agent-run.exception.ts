import { AppException, ErrorKind } from '@app/platform';

export enum AgentRunExceptionCode {
  AGENT_RUN_NOT_FOUND = 'AGENT_RUN_NOT_FOUND',
  CALLBACK_URL_REFUSED = 'CALLBACK_URL_REFUSED',
  WEBHOOK_SECRET_MISSING = 'WEBHOOK_SECRET_MISSING',
}

export class AgentRunException extends AppException {
  constructor(code: AgentRunExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static notFound(id: string): AgentRunException {
    return new AgentRunException(
      AgentRunExceptionCode.AGENT_RUN_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Agent run ${id} does not exist.`,
      { run_id: id },
    );
  }

  /** The callback URL fails the egress policy the http tools follow (scheme, credentials, address). */
  static callbackRefused(reason: string, code: string, details: unknown): AgentRunException {
    return new AgentRunException(
      AgentRunExceptionCode.CALLBACK_URL_REFUSED,
      ErrorKind.INVALID_INPUT,
      `callback_url is refused: ${reason}`,
      { field: 'callback_url', code, ...(details && typeof details === 'object' ? details : {}) },
    );
  }

  static webhookSecretMissing(secretName: string): AgentRunException {
    return new AgentRunException(
      AgentRunExceptionCode.WEBHOOK_SECRET_MISSING,
      ErrorKind.INVALID_INPUT,
      `callback_url needs the tenant's webhook signing secret: an admin stores it with PUT /api/secrets/${secretName}.`,
      { field: 'callback_url', secret: secretName },
    );
  }
}
