import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { boundariesPlugin } = require('./boundaries.cjs') as { boundariesPlugin: ESLint.Plugin };

const root = path.resolve(__dirname, '..');

async function lint(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { boundaries: boundariesPlugin },
        rules: { 'boundaries/layers': 'error' },
      },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => m.message);
}

describe('the boundaries/layers lint rule', () => {
  it('refuses an upward import between libs', async () => {
    expect(await lint('libs/tools/src/core/x.ts', "import { PlannerService } from '@app/planner';")).toEqual([
      expect.stringMatching(/@app\/planner is not below tools/),
    ]);
    expect(await lint('libs/platform/src/x.ts', "export { Y } from '@app/documents';")).toHaveLength(1);
  });

  it('puts the assistant above the planner: the planner may not import it, the assistant and apps may', async () => {
    expect(await lint('libs/planner/src/x.ts', "import { ChatService } from '@app/assistant';")).toEqual([
      expect.stringMatching(/@app\/assistant is not below planner/),
    ]);
    expect(
      await lint(
        'libs/assistant/src/chat/x.ts',
        "import { LlmClient } from '@app/planner';\nimport { Y } from '../agent/y';",
      ),
    ).toEqual([]);
    expect(
      await lint('libs/assistant/src/chat/x.ts', "import { X } from '../../../planner/src/llm/llm-client';"),
    ).toEqual([expect.stringMatching(/reaches into planner/)]);
    expect(await lint('apps/api/src/x.ts', "import { AssistantModule } from '@app/assistant';")).toEqual([]);
  });

  it('refuses relative imports into another lib at any depth, and libs reaching into apps/', async () => {
    for (const source of [
      '../../../planner/src/index',
      '../../../../libs/planner/src/plan/plan.types',
      '../../../documents/src/search/deep/deeper/file',
    ])
      expect(await lint('libs/tools/src/core/x.ts', `import { X } from '${source}';`)).toEqual([
        expect.stringMatching(/reaches into (planner|documents)/),
      ]);
    expect(
      await lint('libs/tools/src/x.ts', "import { X } from '../../../apps/api/src/app.module';"),
    ).toEqual([expect.stringMatching(/must not depend on apps/)]);
    expect(
      await lint('test/medium/x.spec.ts', "import { X } from '../../libs/tools/src/core/tool-registry';"),
    ).toEqual([expect.stringMatching(/reaches into tools/)]);
  });

  it("lets only tests and benches use a lib's test-only entry", async () => {
    const source = "import { ChunksRepository } from '@app/documents/testing';";
    expect(await lint('test/medium/documents/x.spec.ts', source)).toEqual([]);
    expect(await lint('bench/x.ts', source)).toEqual([]);
    expect(await lint('libs/tools/src/x.ts', source)).toEqual([expect.stringMatching(/public surface/)]);
    expect(await lint('apps/api/src/x.ts', source)).toEqual([expect.stringMatching(/public surface/)]);
  });

  it("lets apps, tests and benches (not libs) use the platform's start-up entry", async () => {
    const source = "import { startDatabaseEarly } from '@app/platform/boot';";
    expect(await lint('apps/api/src/main.ts', source)).toEqual([]);
    expect(await lint('test/medium/x.spec.ts', source)).toEqual([]);
    expect(await lint('libs/tools/src/x.ts', source)).toEqual([expect.stringMatching(/public surface/)]);
    expect(await lint('apps/api/src/x.ts', "import { X } from '@app/tools/boot';")).toEqual([
      expect.stringMatching(/public surface/),
    ]);
  });

  it('refuses deep alias imports and accepts allowed ones', async () => {
    expect(
      await lint('apps/api/src/x.ts', "import { X } from '@app/tools/src/core/tool-registry';"),
    ).toHaveLength(1);
    expect(
      await lint(
        'libs/planner/src/x.ts',
        "import { ToolRegistry } from '@app/tools';\nimport { Y } from './y';\nimport { Z } from '../plan/z';",
      ),
    ).toEqual([]);
    expect(
      await lint('test/medium/x.spec.ts', "import { AppModule } from '../../apps/api/src/app.module';"),
    ).toEqual([]);
  });
});
