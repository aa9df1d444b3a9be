import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { JsonLogger } from '@app/platform';
import { AppModule } from '../app.module';
import { parseArgs, ParsedArgs, stringFlag } from './cli-args';
import { runIngestCommand } from './ingest-command';
import { runAgentsCommand } from './agent-commands';
import { runKeysCommand } from './key-commands';
import { pendingSchemaChanges } from './schema-diff';
import { runSeedCommand } from './seed-commands';

const USAGE = `usage: npm run cli -- <command>
  keys create --tenant T --role admin|operator|reader|service [--name N] [--user U]
  keys list [--tenant T]
  keys revoke <key-id> [--tenant T]
      add --url http://host:3000 [--api-key K] to act on a running server,
      or --data-dir DIR (or DATABASE_URL) to open a stopped server's database
  ingest <folder|file> [--tenant T]   ingest documents with a progress bar (same --url/--data-dir options)
  schema diff                     print SQL the entities need beyond the migrations (exit 1 if any)
  schema generate <PascalName>    write that SQL as a new migration in migrations/
  seed demo [--tenant T] [--scale full|small]
                                  load the demo OPS dataset into a tenant (default: default); idempotent
  agents publish-blog-tools [--tenant T] [--base-url URL] [--data-dir DIR]
                                  create and publish the blog tool assets (get_user_blog_posts,
                                  post_blog_article) against BLOG_API_BASE_URL`;

async function runSchemaCommand(args: ParsedArgs): Promise<void> {
  const [, action, name] = args.positional;
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ schedulers: false }), {
    logger: new JsonLogger({ level: 'warn', format: 'pretty', stream: process.stderr }),
    abortOnError: false,
  });
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

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  switch (args.positional[0]) {
    case 'keys':
      return runKeysCommand(args);
    case 'schema':
      return runSchemaCommand(args);
    case 'seed':
      return runSeedCommand(args);
    case 'ingest':
      return runIngestCommand(args);
    case 'agents':
      return runAgentsCommand(args);
    default:
      process.stdout.write(`${USAGE}\n`);
      if (args.positional[0] && args.positional[0] !== 'help') process.exitCode = 2;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
