// `npm test`: unit tests, then the medium and e2e tiers against the native PostgreSQL + Redis and
// against the embedded PGlite backend. Extra arguments go to every jest run (e.g. a path filter).
// The backend tiers run one after the other with live output, each on two jest workers;
// TEST_PARALLEL_TIERS=1 runs them side by side (each spec has its own database, so they do not
// collide), with each tier's output kept in test-results/<tier>.log and printed when it ends.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const extra = process.argv.slice(2);
const backends = (process.env.TEST_BACKENDS ?? 'native,embedded').split(',').filter(Boolean);
const parallel = process.env.TEST_PARALLEL_TIERS === '1' && backends.length > 1;
const resultsDir = path.join(root, 'test-results');

const outcomes = [];

function environment(env) {
  return {
    ...process.env,
    ...env,
    OPS_TEST_DIST_BUILT: '1',
    // PGlite loads its WASM through dynamic import(), which jest's VM allows only with this flag.
    // --expose-gc lets the medium/e2e environment (test/support/releasing-environment.cjs) collect a
    // finished spec file's memory before its worker takes the next file or exits.
    NODE_OPTIONS: [
      process.env.NODE_OPTIONS,
      '--experimental-vm-modules',
      '--expose-gc',
      '--no-warnings=ExperimentalWarning',
    ]
      .filter(Boolean)
      .join(' '),
  };
}

/** Runs one tier with live output; a failing tier does not stop the others, so every tier reports. */
function run(label, args, env = {}) {
  process.stderr.write(`\n=== ${label} ===\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [jest, ...args, ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: environment(env),
  });
  record(label, result.status === 0, started);
}

/** Runs one tier in the background, its output in a log file printed when it ends. */
function runLogged(label, args, env = {}) {
  const started = Date.now();
  const file = path.join(resultsDir, `${label.replace(/[^a-z0-9]+/gi, '-')}.log`);
  const log = createWriteStream(file);
  process.stderr.write(`=== ${label}: started (output in ${path.relative(root, file)}) ===\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [jest, ...args, ...extra], { cwd: root, env: environment(env) });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    child.on('close', (code) => {
      log.end(() => {
        process.stderr.write(`\n=== ${label} ===\n${readFileSync(file, 'utf8')}`);
        record(label, code === 0, started);
        resolve();
      });
    });
  });
}

function record(label, passed, started) {
  outcomes.push({ label, passed, seconds: Math.round((Date.now() - started) / 1000) });
  if (!passed) process.stderr.write(`\n${label}: FAILED\n`);
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

run('unit', ['--selectProjects', 'unit', '--passWithNoTests']);
// Two workers per tier even on a 2-core machine: in band (jest's choice for one worker) every spec
// file's modules, WebAssembly included, pile up in one process until its heap runs out; workers are
// recycled past jest.config.js's workerIdleMemoryLimit.
const tier = (backend) => [
  `medium + e2e on ${backend}`,
  ['--selectProjects', 'medium', 'e2e', '--passWithNoTests', '--maxWorkers=2'],
  { TEST_DB_BACKEND: backend },
];
if (parallel) {
  mkdirSync(resultsDir, { recursive: true });
  await Promise.all(backends.map((backend) => runLogged(...tier(backend))));
} else {
  for (const backend of backends) run(...tier(backend));
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
