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
export { DemoDataService, type DemoStatus, type DemoLoadOptions } from './demo/demo-data.service';
