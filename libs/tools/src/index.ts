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
  type ToolCaller,
  type PendingAction,
} from './core/tool.types';
export { HttpToolsModule } from './http/http-tools.module';
export { HttpToolFactory } from './http/http-tool.factory';
export { type DynamicToolFactory, type DynamicToolMeta } from './http/dynamic-tool.factory';
export { ToolKindsModule } from './kinds/tool-kinds.module';
export { ToolKindRegistry, type ToolKind } from './kinds/tool-kind.registry';
export { DynamicToolException, DynamicToolExceptionCode } from './http/http-tool.exception';
export { ToolAssetDryRunService } from './http/tool-asset-dry-run.service';
export { OutboundHttpClient, OutboundErrorCode } from './http/outbound-http.client';
export { McpToolServer } from './mcp/mcp-tool-server.service';
export { McpClientService } from './mcp/mcp-client.service';
export { type McpConnectionStatus } from './mcp/mcp-server-connection';
export { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
export { DemoDataService, type DemoStatus, type DemoLoadOptions } from './demo/demo-data.service';
export { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from './ops/ops-catalog';
export { OpsDataPresence, OPS_DATA_TOOLS } from './ops/ops-data-presence.service';
export {
  AGGREGATIONS,
  CI_ENVIRONMENTS,
  CI_STATUSES,
  CI_TYPES,
  EVENT_KINDS,
  EVENT_SEVERITIES,
  METRIC_NAMES,
  METRICS,
  RELATION_TYPES,
} from './ops/ops-vocabulary';
export { createSqlTool, SqlToolFactory, SQL_TOOL_DEFAULTS } from './sql/sql-tool.factory';
export {
  checkSqlQuery,
  loadSqlParser,
  SqlGuardError,
  type CheckedSql,
  type SqlIssue,
} from './sql/sql-guard.util';
export { SQL_TOOL_RELATIONS } from './sql/sql-tool.repository';
export {
  StageExecutorService,
  type StageCaller,
  type StageRequest,
  type StageRunView,
  type StageStepResult,
} from './stage/stage-executor.service';
export { type StageRunStatus } from './stage/stage-run.entity';
export { StageException, StageExceptionCode } from './stage/stage.exception';
export { REF_KEY, type StageStepRequest } from './stage/stage-plan.util';
export { DEMO_DATASET_VERSION, buildDemoDataset, type DemoScale } from './demo/demo-dataset';
export { DEMO_RUNBOOKS_DIR, listDemoRunbooks, type DemoRunbook } from './demo/demo-runbooks';
export { BUILTIN_TOOL_DEFINITIONS } from './builtin/builtin-tool-definitions';
export { DEMO_CATALOG_ASSET, DEMO_MAPPING_ASSET } from './demo/demo-knowledge.service';
export { SideEffectGate } from './core/side-effect-gate';
export { PendingActionService, type PendingActionView, type Decider } from './actions/pending-action.service';
