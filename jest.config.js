// Three tiers (see ARCHITECTURE.md): unit next to the code, medium against real PostgreSQL/Redis or
// embedded PGlite, e2e booting the app over HTTP. `npm test` runs medium and e2e on both backends.
const { swcOptions } = require('./scripts/swc-options.cjs');

const transform = { '^.+\\.ts$': ['@swc/jest', { ...swcOptions(), swcrc: false }] };
const moduleNameMapper = {
  '^@app/migrations$': '<rootDir>/migrations',
  '^@app/([a-z-]+)/testing$': '<rootDir>/libs/$1/src/testing',
  '^@app/platform/boot$': '<rootDir>/libs/platform/src/boot',
  '^@app/([a-z-]+)/config$': '<rootDir>/libs/$1/src/$1.config',
  '^@app/(platform|documents|asset-registry|tools|ops|code|planner|assistant)$': '<rootDir>/libs/$1/src',
  '^@test/support$': '<rootDir>/test/support',
};
const common = { rootDir: __dirname, transform, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  // A worker loads every spec file's modules afresh, WebAssembly included (libpg-query, PGlite,
  // tree-sitter), and Node keeps some finished files' vm contexts alive (see
  // test/support/releasing-environment.cjs, which empties them): a worker that went through many spec
  // files ran out of heap. Recycle a worker once it holds more than this after a file.
  workerIdleMemoryLimit: '1536MB',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,eslint}/**/*.spec.ts'],
      testEnvironment: '<rootDir>/test/support/quiet-environment.cjs',
      setupFilesAfterEnv: ['<rootDir>/test/support/quiet-logs.ts'],
    },
    {
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.spec.ts'],
      testEnvironment: '<rootDir>/test/support/releasing-environment.cjs',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-setup.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testEnvironment: '<rootDir>/test/support/releasing-environment.cjs',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-setup.ts'],
    },
  ],
};
