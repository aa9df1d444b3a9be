import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LabelledQuestion } from './grade-plan';

/**
 * Writes the tuning part of the independent questions (never the held-out part) as the fallback planner's
 * intent examples: `node dist/bench/planner/export-intent-examples.js` after `npm run build`, then prettier.
 */
function main(): void {
  const root = path.resolve(__dirname, '../../..');
  const source = path.join(root, 'bench/planner/planner-questions-independent.json');
  const { questions } = JSON.parse(readFileSync(source, 'utf8')) as { questions: LabelledQuestion[] };
  const tune = questions.filter((q) => q.split === 'tune');
  const lines = [
    '/**',
    ' * Labelled OPS questions the intent classifier learns from: the tuning part of',
    ' * bench/planner/planner-questions-independent.json (never its held-out part), written from the tool',
    ' * descriptions only. Regenerate with `node dist/bench/planner/export-intent-examples.js`.',
    ' */',
    'export const OPS_INTENT_EXAMPLES: ReadonlyArray<{ text: string; tools: string[] }> = [',
    ...tune.map((q) => `  { text: ${JSON.stringify(q.query)}, tools: ${JSON.stringify(q.tools)} },`),
    '];',
  ];
  writeFileSync(path.join(root, 'libs/planner/src/fallback/intent-examples.ts'), `${lines.join('\n')}\n`);
  process.stdout.write(`${tune.length} tuning questions written\n`);
}

main();
