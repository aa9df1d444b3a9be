import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, boundariesPlugin } = require('./boundaries.cjs') as {
  LAYERS: Record<string, string[]>;
  boundariesPlugin: ESLint.Plugin;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TEST_FILES, NO_BENCH_IMPORTS } = require('./test-restrictions.cjs') as {
  TEST_FILES: string[];
  NO_BENCH_IMPORTS: Record<string, unknown>;
};

const root = path.resolve(__dirname, '..');

async function lint(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      {
        files: ['**/*.ts'],
        plugins: { boundaries: boundariesPlugin },
        rules: { 'boundaries/layers': 'error' },
      },
      { files: TEST_FILES, rules: { 'no-restricted-imports': ['error', NO_BENCH_IMPORTS] } },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => m.message);
}

describe('the layers name the real libs', () => {
  it('has one entry per folder under libs/, and every allowed import names one of them', () => {
    const libs = readdirSync(path.join(root, 'libs'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(LAYERS).sort()).toEqual(libs);
    for (const allowed of Object.values(LAYERS)) for (const lib of allowed) expect(libs).toContain(lib);
  });

  it("keeps the migrations the platform lib's: another lib may not import them, apps and tests may", async () => {
    const source = "import { MIGRATIONS } from '@app/migrations';";
    expect(await lint('libs/platform/src/database/x.ts', source)).toEqual([]);
    expect(await lint('libs/documents/src/x.ts', source)).toEqual([expect.stringMatching(/platform's/)]);
    expect(
      await lint('libs/documents/src/x.ts', "import { MIGRATIONS } from '../../../migrations';"),
    ).toEqual([expect.stringMatching(/platform's/)]);
    expect(await lint('test/medium/x.spec.ts', source)).toEqual([]);
    expect(await lint('apps/api/src/x.ts', source)).toEqual([]);
  });
});

describe('tests may not import bench/', () => {
  it.each([
    ['libs/planner/src/fallback/x.spec.ts', '../../../../bench/planner/eval-planner'],
    ['test/e2e/x.e2e-spec.ts', '../../bench/planner/grade-plan'],
    ['test/support/x.ts', '../../bench/run'],
    ['test/medium/documents/x.spec.ts', '../../../bench'],
  ])('refuses %s importing %s', async (file, source) => {
    expect(await lint(file, `import { x } from '${source}';`)).toEqual([
      expect.stringMatching(/may not import bench/),
    ]);
  });

  it('lets benches import each other, and tests import paths that merely contain the word', async () => {
    expect(await lint('bench/planner/x.ts', "import { x } from './grade-plan';")).toEqual([]);
    expect(await lint('bench/x.ts', "import { x } from '../bench/planner/grade-plan';")).toEqual([]);
    expect(await lint('test/e2e/x.e2e-spec.ts', "import { x } from '@test/support/benchmarks';")).toEqual([]);
    expect(await lint('test/e2e/x.e2e-spec.ts', "import { x } from './workbench/y';")).toEqual([]);
  });
});
