import { spawn } from 'node:child_process';
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes';
import type { RecordedCall } from './readme-examples';

/**
 * Runs documentation blocks one after another as a reader would in one terminal: each block is a fresh
 * `bash` with `set -euo pipefail` that starts from the variables the earlier blocks exported (and the
 * environment the reader set before: the server's `OPS_URL`). A block runs exactly as written: nothing
 * in it is rewritten. The working directory looks like a clone (dist, node_modules, examples; `data` is
 * the test server's data directory), so `cat data/admin-key` and `npm run cli` work as written. `curl` is
 * wrapped by a shell function that records the status and body of every call.
 */
export class ReadmeShell {
  private readonly stateFile: string;
  private blockCount = 0;

  constructor(
    private readonly workDir: string,
    initialEnv: Record<string, string>,
  ) {
    this.stateFile = path.join(workDir, '.readme-test', 'env.sh');
    const lines = Object.entries(initialEnv).map(([key, value]) => `export ${key}=${shellQuote(value)}`);
    writeFileSync(this.stateFile, `${lines.join('\n')}\n`);
  }

  /** A directory that looks like a clone, with `data` pointing at the server's data directory. */
  static prepareWorkDir(workDir: string, dataDir: string): void {
    mkdirSync(path.join(workDir, '.readme-test'), { recursive: true });
    for (const entry of ['dist', 'node_modules', 'examples', 'scripts'])
      symlinkSync(path.join(ROOT, entry), path.join(workDir, entry));
    symlinkSync(dataDir, path.join(workDir, 'data'));
    // dist/ is built once by the test set-up (`npm run cli` builds only when the sources changed).
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    pkg.scripts.build = 'true';
    writeFileSync(path.join(workDir, 'package.json'), JSON.stringify(pkg, null, 2));
  }

  /** A variable the blocks so far exported (undefined when none did). */
  exported(name: string): string | undefined {
    const state = readOptional(this.stateFile);
    const match = new RegExp(`^(?:declare -x|export) ${name}="?([^"\\n]*)"?$`, 'm').exec(state);
    return match?.[1];
  }

  async run(
    code: string,
    timeoutMs: number,
  ): Promise<{ exitCode: number | null; stdout: string; stderr: string; calls: RecordedCall[] }> {
    const callDir = path.join(this.workDir, '.readme-test', `block-${++this.blockCount}`);
    mkdirSync(callDir);
    const script = path.join(callDir, 'block.sh');
    writeFileSync(
      script,
      [
        `source ${shellQuote(this.stateFile)}`,
        `export README_TEST_CALLS=${shellQuote(callDir)}`,
        CURL_WRAPPER,
        `trap 'export -p > ${shellQuote(this.stateFile)}.next' EXIT`,
        'set -euo pipefail',
        `cd ${shellQuote(this.workDir)}`,
        code,
        '',
      ].join('\n'),
    );
    const result = await runBash(script, this.workDir, timeoutMs);
    if (existsSync(`${this.stateFile}.next`)) renameSync(`${this.stateFile}.next`, this.stateFile);
    return { ...result, calls: readCalls(callDir) };
  }
}

/** Records each call: `call-X` holds its start time, `call-X.out` what curl wrote to stdout, `call-X.status`. */
const CURL_WRAPPER = String.raw`
curl() {
  local n
  n=$(mktemp "$README_TEST_CALLS/call-XXXXXXXX")
  date +%s%N > "$n"
  local rc=0
  command curl -sS "$@" --write-out '%{stderr}\n__README_STATUS__%{http_code}\n' 2>"$n.err" | tee "$n.out" || rc=$?
  sed -n 's/^__README_STATUS__//p' "$n.err" > "$n.status"
  grep -v '^__README_STATUS__' "$n.err" | sed '/^$/d' >&2 || true
  return $rc
}
`;

function readCalls(callDir: string): RecordedCall[] {
  // mktemp names are random (calls may run in subshells): order by the time each call started.
  return readdirSync(callDir)
    .filter((name) => /^call-[^.]+$/.test(name))
    .map((name) => path.join(callDir, name))
    .map((file) => ({ file, started: BigInt(readFileSync(file, 'utf8').trim() || '0') }))
    .sort((a, b) => (a.started < b.started ? -1 : a.started > b.started ? 1 : 0))
    .map(({ file }) => ({
      status: Number(readOptional(`${file}.status`).trim() || 0),
      body: readOptional(`${file}.out`),
    }));
}

function readOptional(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function runBash(
  script: string,
  cwd: string,
  timeoutMs: number,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LANG: 'C.UTF-8',
        // npm would otherwise look for a newer npm over the network.
        NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      },
      // Its own process group, so a timeout also ends what the block started (npm, node).
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n(readme test: killed after ${timeoutMs} ms)`;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
