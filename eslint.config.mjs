// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from './eslint/boundaries.cjs';
import testRestrictions from './eslint/test-restrictions.cjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.js',
      '.bench-data/**',
    ],
  },
  // Every TypeScript file is linted, the console's .tsx included (apps/console has its own tsconfig,
  // which the project service finds).
  { files: ['**/*.ts', '**/*.tsx'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: [
      'apps/**/*.ts',
      'apps/**/*.tsx',
      'libs/**/*.ts',
      'migrations/**/*.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
    ],
    plugins: { boundaries: boundaries.boundariesPlugin },
    rules: { 'boundaries/layers': 'error' },
  },
  {
    files: testRestrictions.TEST_FILES,
    rules: { 'no-restricted-imports': ['error', testRestrictions.NO_BENCH_IMPORTS] },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
