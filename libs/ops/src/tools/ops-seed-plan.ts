import type { SeedPlanPart } from '@app/tools';
import { CI_LOOKUP_TOOL } from './ci-lookup.tool';
import { GRAPH_ANALYSIS_TOOL } from './graph-analysis.tool';
import { METRIC_QUERY_TOOL } from './metric-query.tool';

/**
 * The seeds' plan shape (seed 004, section 6.3) over the OPS tools: `primary` looks items up, `metric`
 * queries metrics, `graph` walks relations, each answered under `<part>_results` in `execute_output`.
 * Registered with the tools lib's `SeedPlanShape` on init.
 */
export const OPS_SEED_PLAN_PARTS: readonly SeedPlanPart[] = [
  { part: 'primary', tool: CI_LOOKUP_TOOL.name, output: 'primary_results' },
  { part: 'metric', tool: METRIC_QUERY_TOOL.name, output: 'metric_results' },
  { part: 'graph', tool: GRAPH_ANALYSIS_TOOL.name, output: 'graph_results' },
];
