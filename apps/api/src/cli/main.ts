import 'reflect-metadata';
import { parseArgs, ParsedArgs } from './cli-args';

const CONNECTION_HELP = `      --url http://host:3000 (default: OPS_URL) acts on a running server, with the key in
      OPS_API_KEY, else OPS_KEY, else DATA_DIR/admin-key (--api-key K overrides them; npm echoes
      its command line, so prefer the environment); --data-dir DIR (or, without --url and OPS_URL,
      DATA_DIR / DATABASE_URL) opens a stopped server's database.`;

/**
 * Usage per command: `npm run cli -- <command> --help` prints it without loading the application: every
 * command module (and through it the Nest application, the ORM and the driver) is imported only when the
 * command runs, so nothing here may import them statically.
 */
const COMMAND_USAGE: Record<string, string> = {
  keys: `keys create --tenant T --role admin|operator|reader|service [--name N] [--user U]
keys list [--tenant T]
keys revoke <key-id> [--tenant T]
${CONNECTION_HELP}`,
  ingest: `ingest <folder|file> [--tenant T] [--bulk]   ingest documents with a progress bar (--bulk: COPY, one index build after the batch)
${CONNECTION_HELP}`,
  schema: `schema diff                     print SQL the entities need beyond the migrations (exit 1 if any)
schema generate <PascalName>    write that SQL as a new migration in migrations/`,
  seed: `seed demo [--tenant T] [--scale full|small] [--data-dir DIR]
                                load the demo OPS dataset into a tenant (default: default); idempotent`,
  agents: `agents publish-blog-tools [--tenant T] [--base-url URL] [--data-dir DIR]
                                create and publish the blog tool assets (get_user_blog_posts,
                                post_blog_article) against BLOG_API_BASE_URL`,
};

const USAGE = `usage: npm run cli -- <command> [--help] [--verbose]
${Object.values(COMMAND_USAGE)
  .map((text) => text.replace(/^/gm, '  '))
  .join('\n')}
  --verbose shows stack traces and the application's log lines`;

const COMMANDS: Record<string, (args: ParsedArgs) => Promise<void>> = {
  keys: async (args) => (await import('./key-commands')).runKeysCommand(args),
  schema: async (args) => (await import('./schema-command')).runSchemaCommand(args),
  seed: async (args) => (await import('./seed-commands')).runSeedCommand(args),
  ingest: async (args) => (await import('./ingest-command')).runIngestCommand(args),
  agents: async (args) => (await import('./agent-commands')).runAgentsCommand(args),
};

const wantsHelp = (args: ParsedArgs) =>
  Boolean(args.flags.help) || args.positional.includes('-h') || args.positional[0] === 'help';

async function main(args: ParsedArgs): Promise<void> {
  const [command] = args.positional;
  const topic = command === 'help' ? args.positional[1] : command;
  if (!command || wantsHelp(args)) {
    process.stdout.write(`${topic && COMMAND_USAGE[topic] ? COMMAND_USAGE[topic] : USAGE}\n`);
    return;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`unknown command "${command}"\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // A CLI command holds the database credentials: it acts as the operator, across tenants (audited).
  const [{ runAsSystem }, { Logger }] = await Promise.all([
    import('@app/platform'),
    import('@nestjs/common'),
  ]);
  // Log lines (the system-access audit line included) only with --verbose: the output is the command's own.
  if (!args.flags.verbose) Logger.overrideLogger(false);
  await runAsSystem(`cli: ${command}`, () => run(args));
}

const cliArgs = parseArgs(process.argv.slice(2));
main(cliArgs).catch((error: unknown) => {
  const verbose = Boolean(cliArgs.flags.verbose);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `error: ${verbose && error instanceof Error ? error.stack : message.split('\n')[0]}\n`,
  );
  if (!verbose) process.stderr.write('(run again with --verbose for details)\n');
  process.exitCode = 1;
});
