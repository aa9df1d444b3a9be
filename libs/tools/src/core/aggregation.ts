/**
 * The aggregations a tool parameter named `aggregation` or `agg` may offer, and so the ones a question's
 * words can ask for: a tool lists the ones it computes in its input schema, the planner reads them from
 * the question and fills the parameter when the tool offers the one asked for.
 */
export const AGGREGATIONS = ['avg', 'max', 'min', 'sum', 'p95', 'count'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];
