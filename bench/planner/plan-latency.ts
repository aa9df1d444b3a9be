import { CatalogIndex, FallbackPlanner } from '@app/planner';
import { OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { SERVED_BUILTIN_DEFINITIONS } from './eval-planner';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * What a fallback plan costs: `node dist/bench/planner/plan-latency.js` (after `npm run build`). Trains the
 * classifier on the demo tenant's published knowledge with every served built-in (in the background, as
 * after a publish: the time to ready is printed), then plans every retired question twice, timed one by one,
 * and prints the mean, p50 and p95 per plan. No document store (that is an I/O of its own).
 */
async function main(): Promise<void> {
  const tools = [...SERVED_BUILTIN_DEFINITIONS];
  const catalog = new CatalogIndex(OPS_CATALOG);
  const planner = new FallbackPlanner();
  const queries = RETIRED_SETS.flatMap((name) => readQuestionFile(name).questions.map((q) => q.query));
  const now = new Date('2026-11-22T09:00:00Z');
  const input = (query: string) => ({
    query,
    tools,
    catalog,
    mappings: OPS_KEYWORD_MAPPINGS,
    now,
    maxLimit: 100,
  });
  const training = performance.now();
  await planner.prepare(input(''));
  const trainedMs = performance.now() - training;
  const times: number[] = [];
  for (let pass = 0; pass < 2; pass++)
    for (const query of queries) {
      const started = performance.now();
      planner.plan(input(query));
      times.push(performance.now() - started);
    }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  process.stdout.write(
    `${queries.length} questions, ${tools.length} tools: training in the background ${trainedMs.toFixed(0)} ms; ` +
      `per plan mean ${mean.toFixed(2)} ms, p50 ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms\n`,
  );
}

void main();
