import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildDist,
  createSourceDatabase,
  createTestDatabase,
  freePort,
  ROOT,
  runNode,
  RunningProcess,
  sleep,
  SourceDatabase,
  TestDatabase,
  testBackend,
} from '@test/support';
import {
  checkExample,
  DOCUMENTATION_PAGES,
  extractExamples,
  leakedKeys,
  ReadmeExample,
} from '../support/readme-examples';
import { ReadmeShell } from '../support/readme-shell';

// Executable documentation: every ```bash block of README.md and of the pages under docs/ is marked `run`
// (executed here, as written, in DOCUMENTATION_PAGES order, in one shell against one real server) or
// `skip` with a reason. Marker syntax: docs/notes/readme.md.
const MAIN = 'dist/apps/api/src/main.js';
const examples = DOCUMENTATION_PAGES.flatMap((page) =>
  extractExamples(readFileSync(path.join(ROOT, page), 'utf8'), page),
);
const where = (example: ReadmeExample) => `${example.file}:${example.line}`;

/** Why a block is not run on this backend, or undefined when it runs. */
function skipReason(example: ReadmeExample): string | undefined {
  if (example.marker.kind === 'skip') return example.marker.reason;
  // `--data-dir ./data` is an embedded database; the native server's data lives elsewhere.
  if (
    example.marker.kind === 'run' &&
    example.marker.checks.includes('server=stopped') &&
    testBackend() === 'native'
  )
    return "works on a stopped server's embedded data directory (embedded run only)";
  return undefined;
}

describe(`documentation examples (${testBackend()})`, () => {
  let database: TestDatabase;
  let sourceDatabase: SourceDatabase;
  let server: RunningProcess;
  let workDir: string;
  let shell: ReadmeShell;
  let adminKey: string;
  let startServer: () => Promise<RunningProcess>;

  beforeAll(async () => {
    for (const tool of ['curl', 'jq'])
      if (spawnSync(tool, ['--version']).status !== 0)
        throw new Error(`the README examples need ${tool} on PATH`);
    buildDist();
    database = await createTestDatabase();
    // The README's `source` example reads a database of the reader's own (seed 004's postgres_prod): here a
    // throwaway second database on the local PostgreSQL, reached over TCP whatever the backend.
    sourceDatabase = await createSourceDatabase();
    const dataDir = database.env.DATA_DIR;
    mkdirSync(dataDir, { recursive: true });
    workDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-readme-'));
    ReadmeShell.prepareWorkDir(workDir, dataDir);
    const port = await freePort();
    // The example blog backend and webhook receiver the README starts (examples/), on ports of their own
    // here, allowed the way the README tells a reader to (HTTP_TOOL_ALLOWLIST).
    const [blogPort, hookPort] = [await freePort(), await freePort()];
    const secretsKey = randomBytes(32).toString('base64');
    startServer = async () => {
      // No ADMIN_API_KEY: the first start writes data/admin-key, which the quick start reads.
      const started = runNode(MAIN, {
        ...database.env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DEMO_DATA: 'on',
        DEMO_DATA_SCALE: 'small',
        // The embedded sql time budget (30 s an hour) is spent by the README's many sql examples on a loaded CI
        // machine; its own specs test it (see the issue 27 note on what its clock counts).
        EMBEDDED_SQL_SECONDS_PER_HOUR: '3600',
        SQL_TOOL_SECONDS_PER_HOUR: '3600',
        SOURCE_HOST_ALLOWLIST: sourceDatabase.host,
        HTTP_TOOL_ALLOWLIST: `127.0.0.1:${blogPort},127.0.0.1:${hookPort}`,
        // With DATABASE_URL the operator sets the secrets key (README "Secrets"); embedded generates one.
        ...(database.env.DATABASE_URL ? { SECRETS_KEY: secretsKey } : {}),
      });
      await started.waitForOutput(/listening on/);
      return started;
    };
    server = await startServer();
    const url = `http://127.0.0.1:${port}`;
    adminKey = readFileSync(path.join(dataDir, 'admin-key'), 'utf8').trim();
    await waitForDemoData(url, adminKey);
    // What a reader whose server listens on another port sets before the quick start (which keeps an
    // OPS_URL already set and exports OPS_KEY from data/admin-key itself), and the URL of the reader's own
    // database that the source example names. Nothing in a block is rewritten.
    shell = new ReadmeShell(workDir, {
      OPS_URL: url,
      SOURCE_DB_URL: sourceDatabase.url,
      BLOG_PORT: String(blogPort),
      HOOK_PORT: String(hookPort),
    });
  }, 180_000);

  afterAll(async () => {
    // The README stops the example backends it starts; a failed block may have left them running.
    for (const name of ['BLOG_PID', 'HOOK_PID']) {
      const pid = Number(shell?.exported(name));
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    }
    server?.child.kill('SIGTERM');
    await server?.exited;
    await database?.drop();
    await sourceDatabase?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('the checker reports what a broken example does', () => {
    const [example] = extractExamples(
      '<!-- readme-test: run json.id -->\n```bash\ncurl x\n```\n```bash\nls\n```',
    );
    expect(example).toMatchObject({ line: 2, code: 'curl x', marker: { kind: 'run', checks: ['json.id'] } });
    expect(extractExamples('```bash\nls\n```')[0].marker.kind).toBe('unmarked');
    const calls = [
      { status: 400, body: '{"error":"VALIDATION_FAILED"}' },
      { status: 200, body: '{"items":[{"score":0}]}' },
    ];
    expect(checkExample(['json.items[0].score>0', 'call1.json.error=VALIDATION_FAILED'], calls, '')).toEqual([
      'call 1: status 400, expected 2xx',
      'json.items[0].score>0: is 0',
    ]);
    expect(
      checkExample(['statuses=400,200', 'json.items.length=1', 'stdout~done', 'stderr~key'], calls, 'x', 'y'),
    ).toEqual(['stdout lacks "done"', 'stderr lacks "key"']);
    const key = `ops_${'a1'.repeat(21)}b`;
    expect(leakedKeys(`> ops@1 cli\n> node main.js ingest --api-key ${key}`, [])).toEqual(['ops_a1a1a1a1…']);
    expect(leakedKeys(`key ${key.slice(0, 12)}… created`, [key])).toEqual([]);
    expect(leakedKeys(`token=${key}`, [key])).toEqual(['ops_a1a1a1a1…']);
  });

  it('marks every bash block as run or skip (with a reason)', () => {
    const skipped = examples.flatMap((example) => {
      const reason = skipReason(example);
      return reason === undefined ? [] : [`  ${where(example)}: ${reason}`];
    });
    console.info(`documentation examples not run here:\n${skipped.join('\n')}`);
    const unmarked = examples.filter(
      (example) =>
        example.marker.kind === 'unmarked' || (example.marker.kind === 'skip' && !example.marker.reason),
    );
    expect(unmarked.map(where)).toEqual([]);
  });

  for (const example of examples) {
    const { marker } = example;
    // A skipped block is listed with its reason by 'marks every bash block as run or skip' above.
    if (skipReason(example) !== undefined || marker.kind !== 'run') continue;
    const stopped = marker.checks.includes('server=stopped');
    it(`${where(example)} ${marker.checks.join(' ')}`, async () => {
      if (stopped) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      const result = await shell.run(example.code, 90_000).finally(async () => {
        if (stopped) server = await startServer();
      });
      const problems = checkExample(marker.checks, result.calls, result.stdout, result.stderr);
      if (result.exitCode !== 0) problems.unshift(`bash exited with ${result.exitCode}`);
      // No example shows a key: not the admin key, not one it creates (npm echoes its command line too).
      for (const key of leakedKeys(`${result.stdout}\n${result.stderr}`, [adminKey]))
        problems.push(`the output shows the API key ${key}`);
      if (problems.length > 0) {
        const calls = result.calls.map((call, i) => `  ${i + 1}. ${call.status} ${call.body.slice(0, 400)}`);
        throw new Error(
          [
            `${where(example)}: the example breaks`,
            ...problems.map((problem) => `- ${problem}`),
            `curl calls:\n${calls.join('\n')}`,
            `stdout:\n${result.stdout.slice(-3000)}`,
            `stderr:\n${result.stderr.slice(-3000)}`,
          ].join('\n'),
        );
      }
    }, 100_000);
  }
});

async function waitForDemoData(url: string, key: string): Promise<void> {
  const deadline = Date.now() + 150_000;
  let last = '';
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/ops/demo/status`, { headers: { authorization: `Bearer ${key}` } });
    last = await response.text();
    const status = (JSON.parse(last) as { state?: string }).state;
    if (status === 'ready') return;
    if (status === 'failed') break;
    await sleep(500);
  }
  throw new Error(`demo data did not load: ${last}`);
}
