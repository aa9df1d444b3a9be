import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, freePort, runNode, testBackend } from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';
const CLI = 'dist/apps/api/src/cli/main.js';

/** The server's URL on 127.0.0.1, from the port it says it listens on. */
async function listeningUrl(server: ReturnType<typeof runNode>): Promise<string> {
  const line = await server.waitForOutput(/listening on http:\/\/\S+:\d+/);
  return `http://127.0.0.1:${/:(\d+)$/.exec(line)![1]}`;
}

async function cli(env: Record<string, string>, ...args: string[]) {
  const proc = runNode(CLI, env, args);
  const code = await proc.exited;
  return { code, output: proc.output() };
}

describe(`keys CLI (${testBackend()})`, () => {
  let dataDir: string;
  beforeAll(() => buildDist());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-cli-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('manages keys on a running server over HTTP and on a stopped server through its data directory', async () => {
    // PORT=0: the server binds a port the system picks and prints it. A port picked here and bound seconds
    // later (after the embedded database starts) can be taken meanwhile on a busy machine.
    const server = runNode(MAIN, { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    let createdOnline: string;
    let url = '';
    try {
      url = await listeningUrl(server);
      const env = { DATA_DIR: dataDir };
      const created = await cli(
        env,
        'keys',
        'create',
        '--role',
        'operator',
        '--name',
        'pipeline',
        '--url',
        url,
      );
      expect(created.code).toBe(0);
      createdOnline = /^(ops_\S+)$/m.exec(created.output)![1];
      const probe = await fetch(`${url}/api/keys`, { headers: { 'x-api-key': createdOnline } });
      expect(probe.status).toBe(403);

      const tenant = await cli(env, 'keys', 'list', '--url', url, '--tenant', 'default');
      expect(tenant.output).toMatch(/pipeline/);

      // The embedded data directory is locked while the server runs.
      const locked = await cli({ LOG_LEVEL: 'error' }, 'keys', 'list', '--data-dir', dataDir);
      expect(locked.code).toBe(1);
      expect(locked.output).toMatch(/in use by process/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }

    const offline = await cli(
      {},
      'keys',
      'create',
      '--tenant',
      'default',
      '--role',
      'reader',
      '--name',
      'offline',
      '--data-dir',
      dataDir,
    );
    expect(offline.code).toBe(0);
    const listed = await cli({}, 'keys', 'list', '--data-dir', dataDir);
    expect(listed.output).toMatch(/pipeline/);
    expect(listed.output).toMatch(/offline/);
    const pipelineId = /^(\S+)\s+default\s+operator/m.exec(listed.output)![1];
    const revoked = await cli({}, 'keys', 'revoke', pipelineId, '--data-dir', dataDir);
    expect(revoked.code).toBe(0);
    expect(revoked.output).toMatch(/revoked/);

    const restarted = runNode(MAIN, { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      const restartedUrl = await listeningUrl(restarted);
      const admin = readFileSync(path.join(dataDir, 'admin-key'), 'utf8').trim();
      const keys = (await (
        await fetch(`${restartedUrl}/api/keys`, { headers: { authorization: `Bearer ${admin}` } })
      ).json()) as {
        keys: Array<{ name: string; revoked_at: string | null }>;
      };
      expect(keys.keys.find((k) => k.name === 'pipeline')?.revoked_at).not.toBeNull();
      expect(keys.keys.find((k) => k.name === 'offline')?.revoked_at).toBeNull();
      expect(
        (await fetch(`${restartedUrl}/api/keys`, { headers: { authorization: `Bearer ${createdOnline!}` } }))
          .status,
      ).toBe(401);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    // Two server starts and three offline CLI runs, each opening the data directory: minutes on a busy machine.
  }, 300_000);

  it('answers --help for every command without opening a database', async () => {
    for (const command of ['keys', 'ingest', 'seed', 'schema', 'agents']) {
      const help = await cli({ DATA_DIR: dataDir }, command, '--help');
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.output).toMatch(new RegExp(`^${command}\\b`, 'm'));
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('answers --help without loading the application, the ORM or the database driver', async () => {
    // Timing-free proof of "--help is fast": the heavy modules are never loaded. The hook prints what
    // of them is in require.cache when the process exits.
    const hookDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-cli-hook-'));
    const hook = path.join(hookDir, 'report-loaded.cjs');
    writeFileSync(
      hook,
      `process.on('exit', () => {
        const heavy = Object.keys(require.cache).filter((f) =>
          /node_modules[\\\\/](@nestjs[\\\\/]core|typeorm|pg|@electric-sql)[\\\\/]/.test(f) || /dist[\\\\/]libs[\\\\/]/.test(f));
        process.stdout.write('\\nHEAVY_MODULES_LOADED=' + heavy.length + '\\n');
      });`,
    );
    try {
      for (const args of [['--help'], ['keys', '--help'], ['schema', '--help'], ['seed', '--help']]) {
        const help = await cli({ DATA_DIR: dataDir, NODE_OPTIONS: `--require ${hook}` }, ...args);
        expect({ args, code: help.code }).toEqual({ args, code: 0 });
        expect({ args, loaded: /HEAVY_MODULES_LOADED=(\d+)/.exec(help.output)?.[1] }).toEqual({
          args,
          loaded: '0',
        });
      }
    } finally {
      rmSync(hookDir, { recursive: true, force: true });
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('prints an error as one line, with the stack only under --verbose', async () => {
    const file = path.join(dataDir, 'a-file');
    writeFileSync(file, 'x');
    const failed = await cli({}, 'keys', 'list', '--data-dir', path.join(file, 'sub'));
    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(/^error: ENOTDIR/m);
    expect(failed.output).not.toMatch(/^\s+at /m);
    const verbose = await cli({}, 'keys', 'list', '--data-dir', path.join(file, 'sub'), '--verbose');
    expect(verbose.output).toMatch(/^\s+at /m);
  });

  it('names the URL when the server cannot be reached', async () => {
    const port = await freePort();
    const failed = await cli(
      { DATA_DIR: dataDir },
      'keys',
      'list',
      '--url',
      `http://127.0.0.1:${port}`,
      '--api-key',
      'x',
    );
    expect(failed.code).toBe(1);
    expect(failed.output).toContain(`error: GET http://127.0.0.1:${port}/api/keys failed: ECONNREFUSED`);
    expect(failed.output).not.toMatch(/fetch failed/);
  });

  it('says "unchanged" for files whose content is already stored when a folder is ingested again', async () => {
    const folder = path.join(dataDir, 'docs');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.md'), '# Alpha\n\nThe alpha service restarts nightly.');
    writeFileSync(path.join(folder, 'b.md'), '# Beta\n\nThe beta queue drains every hour.');
    const store = path.join(dataDir, 'store');
    const first = await cli({ DEMO_DATA: 'off' }, 'ingest', folder, '--data-dir', store);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/2 of 2 documents ingested/);
    writeFileSync(path.join(folder, 'b.md'), '# Beta\n\nThe beta queue drains every two hours.');
    const second = await cli({ DEMO_DATA: 'off' }, 'ingest', folder, '--data-dir', store);
    expect(second.code).toBe(0);
    expect(second.output).toMatch(/^unchanged\s+a\.md$/m);
    expect(second.output).toMatch(/^done\s+b\.md$/m);
    expect(second.output).toMatch(/1 of 2 documents ingested, 1 unchanged/);
  });
});
