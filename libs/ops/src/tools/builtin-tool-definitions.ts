import { DOCUMENT_SEARCH_TOOL, type ToolDefinition } from '@app/tools';
import { CI_LOOKUP_TOOL } from './ci-lookup.tool';
import { GRAPH_ANALYSIS_TOOL } from './graph-analysis.tool';
import { HISTORY_QUERY_TOOL } from './history-query.tool';
import { METRIC_QUERY_TOOL } from './metric-query.tool';

/** The OPS lib's own built-in tools: their names belong to libs/ops (a unit spec keeps them out of the other libs). */
export const OPS_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  CI_LOOKUP_TOOL,
  METRIC_QUERY_TOOL,
  HISTORY_QUERY_TOOL,
  GRAPH_ANALYSIS_TOOL,
];

/** The built-in tools' definitions, readable without a database (planner evaluation, prompts, docs). */
export const BUILTIN_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  ...OPS_TOOL_DEFINITIONS,
  DOCUMENT_SEARCH_TOOL,
];
