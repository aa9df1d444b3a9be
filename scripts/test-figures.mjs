// Counts test cases and spec lines per tier and per lib, from the files (no test run): the figures
// issue 32 asks for before and after ("the unit tier carries the logic"). `it.each` counts once.
// Usage: node scripts/test-figures.mjs [--json]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const TEST_CASE = /^\s*(?:it|test)(?:\.(?:each\s*(?:\([^]*?\)|`[^`]*`)|skip|only|concurrent|todo))?\s*\(/gm;
/** A case registered for one backend only: `(native ? it : it.skip)(...)`. */
const CONDITIONAL_CASE = /\?\s*(?:it|test)(?:\.skip)?\s*:\s*(?:it|test)(?:\.skip)?\s*\)\s*\(/g;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

function figures(files) {
  let cases = 0;
  let lines = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    cases += (text.match(TEST_CASE)?.length ?? 0) + (text.match(CONDITIONAL_CASE)?.length ?? 0);
    lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  }
  return { files: files.length, cases, lines };
}

const lineCount = (files) =>
  files.reduce((sum, f) => sum + readFileSync(f, 'utf8').split('\n').length - 1, 0);

// test/medium folders named other than their lib
const MEDIUM_DIR = { assistant: 'agents' };
const rows = [];
for (const lib of readdirSync(join(root, 'libs')).sort()) {
  const all = walk(join(root, 'libs', lib)).filter((f) => f.endsWith('.ts'));
  const specs = all.filter((f) => f.endsWith('.spec.ts'));
  const source = all.filter((f) => !f.endsWith('.spec.ts') && !f.includes('/testing/'));
  const medium = walk(join(root, 'test', 'medium')).filter(
    (f) =>
      f.endsWith('.spec.ts') &&
      relative(join(root, 'test', 'medium'), f).startsWith(`${MEDIUM_DIR[lib] ?? lib}/`),
  );
  rows.push({ lib, sourceLines: lineCount(source), unit: figures(specs), medium: figures(medium) });
}
const otherUnit = figures(
  [...walk(join(root, 'apps')), ...walk(join(root, 'eslint'))].filter((f) => f.endsWith('.spec.ts')),
);
const mediumAll = figures(walk(join(root, 'test', 'medium')).filter((f) => f.endsWith('.spec.ts')));
const e2e = figures(walk(join(root, 'test', 'e2e')).filter((f) => f.endsWith('.e2e-spec.ts')));
const unitAll = rows.reduce(
  (t, r) => ({ files: t.files + r.unit.files, cases: t.cases + r.unit.cases, lines: t.lines + r.unit.lines }),
  otherUnit,
);

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ libs: rows, otherUnit, unit: unitAll, medium: mediumAll, e2e }, null, 2));
} else {
  const pad = (s, n) => String(s).padStart(n);
  console.log('lib             src lines | unit files cases  lines | medium files cases  lines');
  for (const r of rows) {
    console.log(
      `${r.lib.padEnd(15)} ${pad(r.sourceLines, 9)} | ${pad(r.unit.files, 10)} ${pad(r.unit.cases, 5)} ${pad(r.unit.lines, 6)} |` +
        ` ${pad(r.medium.files, 12)} ${pad(r.medium.cases, 5)} ${pad(r.medium.lines, 6)}`,
    );
  }
  console.log(
    `apps+eslint unit: ${otherUnit.files} files, ${otherUnit.cases} cases, ${otherUnit.lines} lines`,
  );
  for (const [tier, f] of Object.entries({ unit: unitAll, medium: mediumAll, e2e })) {
    console.log(`${tier.padEnd(6)} total: ${f.files} files, ${f.cases} cases, ${f.lines} lines`);
  }
}
