// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const LIBS = ['platform', 'documents', 'asset-registry', 'tools', 'planner'];

/** A lib may use another lib only through its `@app/<lib>` public surface, and never apps/. */
const boundaryRules = (ownLib) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['@app/*/src', '@app/*/src/**', '@app/*/**'],
          message: 'Import a library through its public surface: @app/<lib>.',
        },
        {
          group: ['**/apps/**', '../../apps/**'],
          message: 'Libraries must not depend on apps/.',
        },
        ...LIBS.filter((lib) => lib !== ownLib).map((lib) => ({
          group: [`**/libs/${lib}/**`, `../../${lib}/**`, `../../../${lib}/**`, `../../../../libs/${lib}/**`],
          message: `Use @app/${lib} instead of reaching into its files.`,
        })),
      ],
    },
  ],
});

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
  ...LIBS.map((lib) => ({ files: [`libs/${lib}/**/*.ts`], rules: boundaryRules(lib) })),
  {
    files: ['apps/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@app/*/src',
                '@app/*/src/**',
                '**/libs/*/src/**',
                '../libs/**',
                '../../libs/**',
                '../../../libs/**',
              ],
              message: 'Import a library through its public surface: @app/<lib>.',
            },
          ],
        },
      ],
    },
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
