import { AppException, ErrorKind } from '@app/platform';

export enum ToolsExceptionCode {
  TOOL_NOT_FOUND = 'TOOL_NOT_FOUND',
  TOOL_INPUT_INVALID = 'TOOL_INPUT_INVALID',
  TOOL_NAME_CONFLICT = 'TOOL_NAME_CONFLICT',
  TOOLS_BUSY = 'TOOLS_BUSY',
  /** The tenant's tool_access policy does not let the caller's role run the tool. */
  TOOL_FORBIDDEN_BY_POLICY = 'TOOL_FORBIDDEN_BY_POLICY',
}

export class ToolsException extends AppException {
  constructor(code: ToolsExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static notFound(name: string): ToolsException {
    return new ToolsException(
      ToolsExceptionCode.TOOL_NOT_FOUND,
      ErrorKind.NOT_FOUND,
      `Tool "${name}" does not exist.`,
      {
        tool: name,
      },
    );
  }
}
