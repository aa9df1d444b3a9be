import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * Writes the independent questions as the fallback planner's intent examples:
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
    '/**',
    ' * Labelled OPS questions the intent classifier learns from: bench/planner/planner-questions-independent.json',
    ` * -2.json, -3.json and -4.json, ${only === 'all' ? 'all of them (their held-out parts were retired on 2026-11-25 and are tuned on)' : `their ${only} parts`}, written`,
    ' * from the tool descriptions only. Regenerate with `node dist/bench/planner/export-intent-examples.js`.',
    ' */',
    'export const OPS_INTENT_EXAMPLES: ReadonlyArray<{ text: string; tools: string[] }> = [',
    ...tune.map((q) => `  { text: ${JSON.stringify(q.query)}, tools: ${JSON.stringify(q.tools)} },`),
    '];',
  ];
  writeFileSync(path.join(root, 'libs/planner/src/fallback/intent-examples.ts'), `${lines.join('\n')}\n`);
  process.stdout.write(`${tune.length} questions written\n`);
}

main();
