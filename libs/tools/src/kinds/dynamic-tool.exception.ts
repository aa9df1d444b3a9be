import type { ToolConfigIssue } from '@app/asset-registry';
import { AppException, ErrorKind } from '@app/platform';

export enum DynamicToolExceptionCode {
  TOOL_CONFIG_INVALID = 'TOOL_CONFIG_INVALID',
}

/** A tool asset whose spec cannot become a working tool (reported at publish time as a 4xx). */
export class DynamicToolException extends AppException {
  constructor(code: DynamicToolExceptionCode, kind: ErrorKind, message: string, details?: unknown) {
    super(code, kind, message, details);
  }

  static invalidConfig(tool: string, issues: ToolConfigIssue[]): DynamicToolException {
    return new DynamicToolException(
      DynamicToolExceptionCode.TOOL_CONFIG_INVALID,
      ErrorKind.INVALID_INPUT,
      `Tool "${tool}" has an invalid configuration: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      { tool, issues },
    );
  }
}
