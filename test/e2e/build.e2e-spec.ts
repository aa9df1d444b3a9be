import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, ROOT, runNode, sleep, testBackend } from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';
const STAMP = path.join(ROOT, 'dist/.build-stamp.json');

/** Issue 31: `npm run cli|mcp|worker` and `npm start` build dist/ while a server may be serving from it. */
describe(`building dist/ under a running server (${testBackend()})`, () => {
  let dataDir: string;
  beforeAll(() => buildDist());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-build-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a full build and `npm run cli` meanwhile: every console and API request of the server answers', async () => {
    const server = runNode(MAIN, { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      const line = await server.waitForOutput(/listening on http:\/\/\S+:\d+/, 120_000);
      const base = `http://127.0.0.1:${/:(\d+)$/.exec(line)![1]}`;
      const paths = ['/console/', '/console/console.js', '/console/console.css', '/health/live'];
      const failures: string[] = [];
      let requests = 0;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          for (const route of paths) {
            requests++;
            const response = await fetch(`${base}${route}`).catch((error: Error) => error);
            if (response instanceof Error) failures.push(`${route}: ${response.message}`);
            else {
              if (response.status !== 200) failures.push(`${route}: ${response.status}`);
              await response.arrayBuffer();
            }
          }
          await sleep(20);
        }
      })();
      // A forced build (what `npm start` or `npm run cli` do after a source change), then the cli as
      // `npm run cli` starts it.
      const build = runNode('scripts/build.mjs', {});
      expect(await build.exited).toBe(0);
      const cli = runNode('scripts/run-dist.mjs', {}, ['apps/api/src/cli/main.js', '--help']);
      expect(await cli.exited).toBe(0);
      polling = false;
      await poller;
      expect(requests).toBeGreaterThan(paths.length);
      expect(failures).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 300_000);

  it('`npm run cli -- --help` on a fresh dist/ does not build and opens no database', async () => {
    const before = readFileSync(STAMP, 'utf8');
    const help = runNode('scripts/run-dist.mjs', { DATA_DIR: dataDir }, [
      'apps/api/src/cli/main.js',
      '--help',
    ]);
    expect(await help.exited).toBe(0);
    expect(help.output()).toMatch(/^usage: npm run cli/m);
    expect(help.output()).not.toMatch(/^build:/m);
    expect(readFileSync(STAMP, 'utf8')).toBe(before);
  });
});
