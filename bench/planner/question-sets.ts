import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LabelledQuestion } from './grade-plan';

/**
 * The retired independent question sets, in the order they were written: each was measured as held out,
 * then read and tuned on (the first set's held-out part after 3 measurements, the second after 2, the third
 * and fourth after 1). The fifth and sixth sets are held out: nothing here reads them.
 */
export const RETIRED_SETS = [
  'planner-questions-independent.json',
  'planner-questions-independent-2.json',
  'planner-questions-independent-3.json',
  'planner-questions-independent-4.json',
];

/** A question file of bench/planner, next to the compiled script or in the source tree. */
export function readQuestionFile(name: string): { now: string; questions: LabelledQuestion[] } {
  const candidates = [path.join(__dirname, name), path.resolve(__dirname, '../../../bench/planner', name)];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (!file) throw new Error(`${name} not found (looked in ${candidates.join(', ')})`);
  return JSON.parse(readFileSync(file, 'utf8')) as { now: string; questions: LabelledQuestion[] };
}
