import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyReadmeRoleRecipe,
  buildDist,
  freePort,
  generateTestApiKey,
  runNode,
  RunningProcess,
  sleep,
  testBackend,
} from '@test/support';

const MAIN = 'dist/apps/api/src/main.js';

/** initdb and postgres refuse to run as root: when the tests do, they run as the `postgres` user. */
function pgCommand(binary: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? 'runuser' : binary, asRoot ? ['-u', 'postgres', '--', binary, ...args] : args, {
    stdio: 'pipe',
  });
}

// A throwaway PostgreSQL cluster this test creates, stops and starts on its own port (never the
// shared server). Native only: the embedded database lives inside the application process.
(testBackend() === 'native' ? describe : describe.skip)(
  'PostgreSQL restarted under load (throwaway cluster)',
  () => {
    let dir: string;
    let port: number;
    let proc: RunningProcess | undefined;
    const adminKey = generateTestApiKey();

    const start = () =>
      pgCommand('pg_ctl', [
        '-D',
        path.join(dir, 'data'),
        '-l',
        path.join(dir, 'postgres.log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
        '-w',
        'start',
      ]);
    const stop = () => pgCommand('pg_ctl', ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);

    beforeAll(async () => {
      buildDist();
      dir = mkdtempSync(path.join(os.tmpdir(), 'ops-pg-restart-'));
      chmodSync(dir, 0o777);
      if (process.getuid?.() === 0) {
        const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
        const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
        chownSync(dir, uid, gid);
      }
      port = await freePort();
      pgCommand('initdb', ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
      start();
      // The production roles (docs/operations.md), with trust authentication: the app migrates as the owner.
      await applyReadmeRoleRecipe(`postgres://postgres@127.0.0.1:${port}/postgres`, 'ops_test_restart');
      const appPort = await freePort();
      proc = runNode(MAIN, {
        DATABASE_URL: `postgres://ops_app@127.0.0.1:${port}/ops_test_restart`,
        DATABASE_MIGRATION_URL: `postgres://ops_owner@127.0.0.1:${port}/ops_test_restart`,
        PORT: String(appPort),
        DATA_DIR: path.join(dir, 'app'),
        ADMIN_API_KEY: adminKey,
        WRITE_ADMIN_KEY_FILE: 'false',
        LOG_LEVEL: 'error',
        RATE_LIMIT_PER_KEY: '0',
      });
      await proc.waitForOutput(/listening on/, 120_000);
      (proc as RunningProcess & { base?: string }).base = `http://127.0.0.1:${appPort}`;
    }, 180_000);

    afterAll(async () => {
      proc?.child.kill('SIGKILL');
      await proc?.exited;
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers 503 with Retry-After while it is down (never 500), and recovers without restarting the process', async () => {
      const base = (proc as RunningProcess & { base: string }).base;
      // Labelled with the phase a request started in and the phase its answer came back in: a request
      // sent while the database is down may legitimately wait for it and succeed once it is back.
      const seen: Array<{ status: number; retryAfter: string | null; phase: string; answeredIn: string }> =
        [];
      let phase = 'up';
      let running = true;
      const load = async () => {
        while (running) {
          const startedIn = phase;
          try {
            const response = await fetch(`${base}/api/keys`, {
              headers: { authorization: `Bearer ${adminKey}` },
            });
            await response.text();
            seen.push({
              status: response.status,
              retryAfter: response.headers.get('retry-after'),
              phase: startedIn,
              answeredIn: phase,
            });
          } catch {
            seen.push({ status: 0, retryAfter: null, phase: startedIn, answeredIn: phase });
          }
        }
      };
      const clients = Array.from({ length: 8 }, load);
      await sleep(1000);
      stop();
      phase = 'down';
      await sleep(3000);
      phase = 'restarting';
      start();
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !seen.some((s) => s.phase === 'recovered' && s.status === 200)) {
        phase = 'recovered';
        await sleep(200);
      }
      await sleep(500);
      running = false;
      await Promise.all(clients);

      expect(seen.filter((s) => s.phase === 'up').some((s) => s.status === 200)).toBe(true);
      const down = seen.filter((s) => s.phase === 'down' && s.answeredIn === 'down');
      expect(down.length).toBeGreaterThan(0);
      expect(down.filter((s) => s.status !== 503)).toEqual([]);
      expect(down.every((s) => Number(s.retryAfter) >= 1)).toBe(true);
      expect(seen.filter((s) => s.status !== 200 && s.status !== 503)).toEqual([]);
      const recovered = seen.filter((s) => s.phase === 'recovered');
      expect(recovered[recovered.length - 1]?.status).toBe(200);
    });
  },
);
