import type { ToolResult } from './tool.types';

/**
 * The one way to build a failed ToolResult: the registry, the stage executor and the MCP server all
 * report a failure in this shape (`error_details.code` is a ToolErrorCode or a stage code such as
 * DEPENDENCY_FAILED).
 */
export function failedToolResult(
  tool: string,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
  executionTimeMs = 0,
): ToolResult {
  return {
    success: false,
    data: null,
    error: message,
    error_details: { code, ...details },
    warnings: [],
    metadata: { tool, execution_time_ms: executionTimeMs },
  };
}
