export { ToolsModule } from './tools.module';
export { ToolsConfig } from './tools.config';
export { ToolRegistry, type ToolListing, type ToolSetListener } from './core/tool-registry';
export { BuiltinTool } from './core/tool.decorator';
export { failedToolResult } from './core/tool-result';
export { BoundedSemaphore } from './core/bounded-semaphore';
export { AGGREGATIONS, type Aggregation } from './core/aggregation';
export { DOCUMENT_SEARCH_TOOL } from './builtin/document-search.tool';
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
  type ToolCaller,
  type PendingAction,
} from './core/tool.types';
export { HttpToolsModule } from './http/http-tools.module';
export { HttpToolFactory } from './http/http-tool.factory';
export { HTTP_METHODS } from './http/http-tool-config.util';
export { type DynamicToolFactory, type DynamicToolMeta } from './kinds/dynamic-tool.factory';
export { ToolKindsModule } from './kinds/tool-kinds.module';
export {
  PLANNING_HINTS_SCHEMA,
  POLICY_ASSET_TYPE,
  SCREEN_ASSET_TYPE,
  STAGE_ASSET_TYPE,
  toolAssetType,
  toolSpecSchema,
} from './assets/tool-asset-types';
export { HTTP_TOOL_CONFIG_SCHEMA } from './http/http-tool-config.schema';
export { ToolKindRegistry, type ToolKind } from './kinds/tool-kind.registry';
export { ToolDataPresence, type ToolDataSource, type RanStep } from './kinds/tool-data-presence';
export { DynamicToolException, DynamicToolExceptionCode } from './kinds/dynamic-tool.exception';
export { ToolAssetDryRunService } from './kinds/tool-asset-dry-run.service';
export { OutboundHttpClient, OutboundErrorCode } from './outbound/outbound-http.client';
export {
  McpToolServer,
  MCP_SERVER_NAME,
  MCP_SERVER_OPTIONS,
  MCP_SERVER_VERSION,
  type McpRequestHandler,
} from './mcp/mcp-tool-server.service';
export { McpClientService } from './mcp/mcp-client.service';
export { preloadMcpServerSdk } from './mcp/mcp-sdk';
export { type McpConnectionStatus } from './mcp/mcp-server-connection';
export { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
export {
  StageExecutorService,
  type StageCaller,
  type StageRequest,
  type StageRunSummary,
  type StageRunView,
  type StageStepResult,
  type StepStatus,
} from './stage/stage-executor.service';
export { type StageRunStatus } from './stage/stage-run.entity';
export { StageException, StageExceptionCode } from './stage/stage.exception';
export { REF_KEY, referencedStep, type StageStepRequest } from './stage/stage-plan.util';
export { SeedPlanShape } from './stage/seed-plan-shape';
export { type SeedPlanPart } from './stage/seed-plan.util';
export { SideEffectGate } from './core/side-effect-gate';
export {
  PendingActionService,
  type PendingActionView,
  type Decider,
  type ActionDecision,
  type ActionDecisionListener,
  type ResumedRunView,
} from './actions/pending-action.service';
