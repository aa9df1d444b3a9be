// What test code may not import. Tests exercise the product: a spec (or its support code) importing
// bench/ makes a benchmark's code part of the suite and ties the suite to it. A test that needs a
// bench runs the built bench as a process (test/e2e/planner-eval-*.e2e-spec.ts).

/** The files the restrictions apply to: unit specs, and everything under test/. */
const TEST_FILES = ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'];

/** `no-restricted-imports` options: any path with a `bench` folder (relative or not). */
const NO_BENCH_IMPORTS = {
  patterns: [
    {
      regex: '(^|/)bench(/|$)',
      message: 'Tests may not import bench/: run the built bench as a process instead.',
    },
  ],
};

module.exports = { TEST_FILES, NO_BENCH_IMPORTS };
