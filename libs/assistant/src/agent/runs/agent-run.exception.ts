import { AppException, ErrorKind } from '@app/platform';

export enum AgentRunExceptionCode {
  AGENT_RUN_NOT_FOUND = 'AGENT_RUN_NOT_FOUND',
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
}
