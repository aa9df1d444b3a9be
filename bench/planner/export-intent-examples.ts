import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LabelledQuestion } from './grade-plan';

/**
 * Writes the independent questions as the fallback planner's intent examples:
 * `node dist/bench/planner/export-intent-examples.js` after `npm run build`, then prettier. All 358 since
 * 2026-11-25 (the first held-out part was retired after 3 measurements and is tuned on); `--split tune`
 * writes the original tuning part alone.
 */
function main(): void {
  const root = path.resolve(__dirname, '../../..');
  const source = path.join(root, 'bench/planner/planner-questions-independent.json');
  const { questions } = JSON.parse(readFileSync(source, 'utf8')) as { questions: LabelledQuestion[] };
  const only = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : 'all';
  const tune = questions.filter((q) => only === 'all' || q.split === only);
  const lines = [
    '/**',
    ' * Labelled OPS questions the intent classifier learns from: bench/planner/planner-questions-independent.json,',
    ` * ${only === 'all' ? 'all of it (its first held-out part was retired on 2026-11-25 and is tuned on)' : `its ${only} part`}, written from the`,
    ' * tool descriptions only. Regenerate with `node dist/bench/planner/export-intent-examples.js`.',
    ' */',
    'export const OPS_INTENT_EXAMPLES: ReadonlyArray<{ text: string; tools: string[] }> = [',
    ...tune.map((q) => `  { text: ${JSON.stringify(q.query)}, tools: ${JSON.stringify(q.tools)} },`),
    '];',
  ];
  writeFileSync(path.join(root, 'libs/planner/src/fallback/intent-examples.ts'), `${lines.join('\n')}\n`);
  process.stdout.write(`${tune.length} questions written\n`);
}

main();
