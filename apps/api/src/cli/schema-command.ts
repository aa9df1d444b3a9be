import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ParsedArgs, stringFlag } from './cli-args';
import { openCliApp } from './cli-app';
import { pendingSchemaChanges } from './schema-diff';

/** `schema diff` / `schema generate <PascalName>` (loaded only when the command runs). */
export async function runSchemaCommand(args: ParsedArgs): Promise<void> {
  const [, action, name] = args.positional;
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const app = await openCliApp(args);
  try {
    const diff = await pendingSchemaChanges(app);
    if (action === 'diff') {
      if (diff.up.length === 0) {
        process.stdout.write('schema: no drift, the migrations match the entities\n');
        return;
      }
      process.stdout.write(
        `schema drift: ${diff.up.length} statement(s) missing from migrations:\n${diff.up.join(';\n')};\n`,
      );
      process.exitCode = 1;
    } else if (action === 'generate' && name && /^[A-Z][A-Za-z0-9]+$/.test(name)) {
      if (diff.up.length === 0) {
        process.stdout.write('schema: nothing to generate\n');
        return;
      }
      const stamp = Date.now();
      const file = path.resolve('migrations', `${stamp}-${name}.ts`);
      const lines = (queries: string[]) =>
        queries.map((q) => `    await queryRunner.query(${JSON.stringify(q)});`).join('\n');
      writeFileSync(
        file,
        `import { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${name}${stamp} implements MigrationInterface {\n  name = '${name}${stamp}';\n\n  public async up(queryRunner: QueryRunner): Promise<void> {\n${lines(diff.up)}\n  }\n\n  public async down(queryRunner: QueryRunner): Promise<void> {\n${lines([...diff.down].reverse())}\n  }\n}\n`,
      );
      process.stdout.write(`wrote ${file}; format it, read it, and add it to migrations/index.ts\n`);
    } else {
      throw new Error('usage: schema diff | schema generate <PascalName>');
    }
  } finally {
    await app.close();
  }
}
