export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | boolean>;
}

/** `a b --name value --flag` -> positional [a, b], flags { name: value, flag: true }. */
export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (inline !== undefined) flags[name] = inline;
      else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = true;
    } else {
      positional.push(arg);
    }
  }
  return { positional, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The running server a command talks to: `--url`, else `OPS_URL` (as the README's quick start exports it),
 * unless `--data-dir` asks for a stopped server's database. Undefined: open the database (DATA_DIR or
 * DATABASE_URL). With `OPS_URL` set, `DATA_DIR` alone does not switch to the database: pass --data-dir.
 */
export function serverUrl(args: ParsedArgs): string | undefined {
  const flag = stringFlag(args, 'url');
  if (flag) return flag;
  if (stringFlag(args, 'data-dir') !== undefined) return undefined;
  const env = process.env.OPS_URL?.trim();
  return env ? env : undefined;
}
