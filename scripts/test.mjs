// `npm test`: unit tests, then the medium and e2e tiers against the native PostgreSQL + Redis and
// against the embedded PGlite backend. Extra arguments go to every jest run (e.g. a path filter).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);
const backends = (process.env.TEST_BACKENDS ?? 'native,embedded').split(',').filter(Boolean);

const outcomes = [];

/** Runs one tier; a failing tier does not stop the others, so both backends always report. */
function run(label, args, env = {}) {
  process.stderr.write(`\n=== ${label} ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [jest, ...args, ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...env,
      OPS_TEST_DIST_BUILT: '1',
      // PGlite loads its WASM through dynamic import(), which jest's VM allows only with this flag.
      NODE_OPTIONS: [
        process.env.NODE_OPTIONS,
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
      ]
        .filter(Boolean)
        .join(' '),
    },
  });
  const passed = result.status === 0;
  outcomes.push({ label, passed, seconds: Math.round((Date.now() - started) / 1000) });
  if (!passed) process.stderr.write(`\n${label}: FAILED\n`);
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

run('unit', ['--selectProjects', 'unit', '--passWithNoTests']);
for (const backend of backends) {
  run(`medium + e2e on ${backend}`, ['--selectProjects', 'medium', 'e2e', '--passWithNoTests'], {
    TEST_DB_BACKEND: backend,
  });
}
process.stderr.write('\n=== summary ===\n');
for (const { label, passed, seconds } of outcomes)
  process.stderr.write(`${passed ? 'passed' : 'FAILED'}  ${label}  (${seconds} s)\n`);
const failed = outcomes.filter((o) => !o.passed);
if (failed.length) {
  process.stderr.write(`\n${failed.length} of ${outcomes.length} test tiers failed\n`);
  process.exit(1);
}
process.stderr.write('\nall test tiers passed\n');
