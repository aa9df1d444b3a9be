import { DOCUMENT_SEARCH_TOOL, type ToolDefinition } from '@app/tools';
import { CI_LOOKUP_TOOL } from './ci-lookup.tool';
import { GRAPH_ANALYSIS_TOOL } from './graph-analysis.tool';
import { HISTORY_QUERY_TOOL } from './history-query.tool';
import { METRIC_QUERY_TOOL } from './metric-query.tool';

/** The built-in tools' definitions, readable without a database (planner evaluation, prompts, docs). */
export const BUILTIN_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  CI_LOOKUP_TOOL,
  METRIC_QUERY_TOOL,
  HISTORY_QUERY_TOOL,
  GRAPH_ANALYSIS_TOOL,
  DOCUMENT_SEARCH_TOOL,
];
