export { OpsModule } from './ops.module';
export { OpsConfig } from './ops.config';
export { DemoDataService, type DemoStatus, type DemoLoadOptions } from './demo/demo-data.service';
export { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from './data/ops-catalog';
export { OPS_PLANNING_EXAMPLES } from './data/ops-planning-examples';
export { OpsDataPresence, OPS_DATA_TOOLS, NO_OPS_DATA_WARNING } from './data/ops-data-presence.service';
export {
  CI_ENVIRONMENTS,
  CI_STATUSES,
  CI_TYPES,
  EVENT_KINDS,
  EVENT_SEVERITIES,
  METRIC_NAMES,
  METRICS,
  RELATION_TYPES,
} from './data/ops-vocabulary';
export { createSqlTool, SqlToolFactory, SQL_TOOL_DEFAULTS } from './sql/sql-tool.factory';
export {
  checkSqlQuery,
  loadSqlParser,
  SqlGuardError,
  type CheckedSql,
  type SqlIssue,
} from './sql/sql-guard.util';
export { SQL_TOOL_RELATIONS } from './sql/sql-tool.repository';
export { SourceSqlRepository } from './sql/source-sql.repository';
export { SQL_TOOL_CONFIG_SCHEMA } from './sql/sql-tool-config.schema';
export { QUERY_ASSET_TYPE } from './query/query-asset-type';
export { DEMO_DATASET_VERSION, buildDemoDataset, type DemoScale } from './demo/demo-dataset';
export { DEMO_RUNBOOKS_DIR, listDemoRunbooks, type DemoRunbook } from './demo/demo-runbooks';
export { BUILTIN_TOOL_DEFINITIONS, OPS_TOOL_DEFINITIONS } from './tools/builtin-tool-definitions';
export { DEMO_CATALOG_ASSET, DEMO_MAPPING_ASSET } from './demo/demo-knowledge.service';
