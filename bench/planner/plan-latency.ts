import { CatalogIndex, FallbackPlanner } from '@app/planner';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * What a fallback plan costs: `node dist/bench/planner/plan-latency.js` (after `npm run build`) plans every
 * retired question once to warm up (the classifier is trained on first use), then twice more, timed, and
 * prints the mean per plan. No document store (that is an I/O of its own).
 */
function main(): void {
  const tools = [...BUILTIN_TOOL_DEFINITIONS];
  const catalog = new CatalogIndex(OPS_CATALOG);
  const planner = new FallbackPlanner();
  const queries = RETIRED_SETS.flatMap((name) => readQuestionFile(name).questions.map((q) => q.query));
  const now = new Date('2026-11-22T09:00:00Z');
  const pass = () => {
    for (const query of queries)
      planner.plan({ query, tools, catalog, mappings: OPS_KEYWORD_MAPPINGS, now, maxLimit: 100 });
  };
  const training = process.hrtime.bigint();
  pass();
  const warm = process.hrtime.bigint();
  pass();
  pass();
  const done = process.hrtime.bigint();
  const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;
  process.stdout.write(
    `${queries.length} questions: first pass (training included) ${ms(training, warm).toFixed(0)} ms; ` +
      `then ${(ms(warm, done) / (2 * queries.length)).toFixed(2)} ms per plan\n`,
  );
}

main();
