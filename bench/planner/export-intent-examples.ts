import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * Writes the retired independent questions as the OPS demo's planning examples (tenant data in libs/ops):
 * `node dist/bench/planner/export-intent-examples.js` after `npm run build`, then prettier. All four sets (958):
 * see question-sets.ts for how each was retired; `--split tune`
 * writes the first set's original tuning part alone.
 */
function main(): void {
  const root = path.resolve(__dirname, '../../..');
  const only = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : 'all';
  const tune = RETIRED_SETS.flatMap((name) =>
    readQuestionFile(name).questions.filter((q) => only === 'all' || q.split === only),
  );
  const lines = [
    "import type { PlanningExample } from '@app/asset-registry';",
    '',
    '/**',
    " * The OPS demo's labelled questions, published with the demo in the mapping asset `ops-keywords`",
    " * (`content.examples`): what the planner without a language model learns the OPS tools' use from, as",
    ' * tenant data (any tenant publishes its own the same way). They are the questions of',
    ' * bench/planner/planner-questions-independent.json, -2.json, -3.json and -4.json, written from the tool',
    ` * descriptions only (${only === 'all' ? 'their held-out parts were retired on 2026-11-25' : `their ${only} parts`}). Regenerate with`,
    ' * `node dist/bench/planner/export-intent-examples.js`.',
    ' */',
    'export const OPS_PLANNING_EXAMPLES: PlanningExample[] = [',
    ...tune.map((q) => `  { text: ${JSON.stringify(q.query)}, tools: ${JSON.stringify(q.tools)} },`),
    '];',
  ];
  writeFileSync(path.join(root, 'libs/ops/src/data/ops-planning-examples.ts'), `${lines.join('\n')}\n`);
  process.stdout.write(`${tune.length} questions written\n`);
}

main();
