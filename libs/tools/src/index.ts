export { ToolsModule } from './tools.module';
export { ToolRegistry, type ToolListing, type ToolSetListener } from './core/tool-registry';
export { BuiltinTool } from './core/tool.decorator';
export { SchemaValidator, type SchemaIssue, type CompiledSchema } from './core/schema-validator';
export { ToolsException, ToolsExceptionCode } from './core/tool-exceptions';
export {
  ToolError,
  ToolErrorCode,
  type JsonSchema,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
  type ToolResult,
  type ToolSource,
} from './core/tool.types';
export { HttpToolsModule } from './http/http-tools.module';
export { HttpToolFactory } from './http/http-tool.factory';
export { SQL_TOOL_FACTORY, type DynamicToolFactory, type DynamicToolMeta } from './http/dynamic-tool.factory';
export { DynamicToolException, DynamicToolExceptionCode } from './http/http-tool.exception';
export { ToolAssetDryRunService } from './http/tool-asset-dry-run.service';
export { OutboundHttpClient, OutboundErrorCode } from './http/outbound-http.client';
export { McpToolServer } from './mcp/mcp-tool-server.service';
export { McpClientService } from './mcp/mcp-client.service';
export { type McpConnectionStatus } from './mcp/mcp-server-connection';
export { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
