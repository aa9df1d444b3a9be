/**
 * `npm run bench:redis-freeze`: what a frozen Redis costs a request. Starts a private redis-server and
 * the built server (`dist/apps/api/src/main.js`) on a fresh embedded data directory with `REDIS_URL`
 * pointing at it, makes document searches (distinct queries, so none is a cache hit) with Redis up,
 * then stopped with SIGSTOP (connections stay open: every command sent waits for its timeout), then
 * after SIGCONT. Reports the latency of each phase (p50, max) and the circuit's effect: with
 * REDIS_COMMAND_TIMEOUT_MS=500, a request should pay at most one 500 ms timeout while frozen.
 * Run `npm run build` first (the script is part of the build).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// BENCH_MAIN: another build's server (e.g. an older commit's) to compare with.
const MAIN = process.env.BENCH_MAIN ?? path.resolve(__dirname, '../apps/api/src/main.js');
const SEARCHES = 12;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-redis-freeze-'));
  const [redisPort, port] = [await freePort(), await freePort()];
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    DEMO_DATA: 'off',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_COMMAND_TIMEOUT_MS: '500',
  };
  delete env.DATABASE_URL;
  delete env.NODE_ENV;
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    for (let waited = 0; (await fetch(`${base}/health/ready`).catch(() => null))?.status !== 200; waited++) {
      if (child.exitCode !== null || waited > 1200) throw new Error(`server did not start:\n${output}`);
      await sleep(100);
    }
    const key = readFileSync(path.join(dataDir, 'admin-key'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let n = 0;
    const phase = async (name: string) => {
      const latencies: number[] = [];
      for (let i = 0; i < SEARCHES; i++) {
        const t0 = performance.now();
        const response = await fetch(`${base}/api/documents/search`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: `rollback runbook ${n++}`, top_k: 5 }),
        });
        await response.text();
        if (response.status !== 200) throw new Error(`search answered ${response.status}`);
        latencies.push(performance.now() - t0);
        await sleep(100);
      }
      latencies.sort((a, b) => a - b);
      const ready = (await (await fetch(`${base}/health/ready`)).json()) as {
        checks: Record<string, { status: string }>;
      };
      console.log(
        `| ${name} | ${latencies[Math.floor(SEARCHES / 2)].toFixed(0)} ms | ${latencies[0].toFixed(0)} ms | ` +
          `${latencies.at(-1)!.toFixed(0)} ms | ${ready.checks.cache.status} | ${ready.checks.change_bus.status} |`,
      );
    };
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, load ${os.loadavg()[0].toFixed(2)}`);
    console.log('| Redis | search p50 | min | max | cache | change_bus |');
    console.log('|---|---|---|---|---|---|');
    await phase('up');
    redis.kill('SIGSTOP');
    await phase('frozen (SIGSTOP)');
    await sleep(4000);
    await phase('frozen, 4 s later');
    redis.kill('SIGCONT');
    await sleep(3000);
    await phase('resumed (SIGCONT), 3 s later');
  } finally {
    child.kill('SIGTERM');
    redis.kill('SIGCONT');
    redis.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
