/**
 * Mixed load against real API processes on native PostgreSQL and Redis (127.0.0.1 only):
 * search 70%, stage execute 20%, document ingestion 10%, spread over the replicas, with each
 * process's RSS sampled while it runs.
 *
 *   npm run bench:soak                       (one replica, 600 s, RSS every 10 s, slope after warm-up)
 *   node dist/bench/load-mixed.js [--replicas 2] [--duration 60] [--connections 16] [--sample 10]
 * (`npm run bench:load` is the multi-process load with a worker and a private Redis: bench/load.ts.)
 *
 * DATABASE_URL (a superuser URL; default the local server) gets a fresh database per run;
 * REDIS_URL (default redis://127.0.0.1:6379) is shared under a key prefix of the run's own.
 */
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { flag, loadAverage, prepareBackend } from './support/bench-app';

interface Replica {
  name: string;
  url: string;
  child: ChildProcess;
  rss: number[];
}

const SEARCHES = [
  'CPU 사용률 급증 대응',
  'rolling back a bad deployment',
  'database connection exhaustion',
  '커넥션 풀 고갈',
  'slow queries after deploy',
  '배포 롤백 절차',
  'on-call escalation',
  'high load average on application server',
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Resident set size of a process in MB (Linux), or NaN once it is gone. */
function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${what} not within ${timeoutMs / 1000} s`);
}

async function startReplica(name: string, env: NodeJS.ProcessEnv): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(__dirname, '../apps/api/src/main.js')], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    `${name} ready`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${stderr}`);
      return (await fetch(`${url}/health/ready`)).ok;
    },
    120_000,
  );
  return { name, url, child, rss: [rssMb(child.pid)] };
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const soak = argv.includes('--soak');
  const replicas = Number(flag(argv, 'replicas') ?? (soak ? 1 : 2));
  const duration = Number(flag(argv, 'duration') ?? (soak ? 600 : 60));
  const connections = Number(flag(argv, 'connections') ?? 16);
  const sampleSeconds = Number(flag(argv, 'sample') ?? 10);
  const warmUpSeconds = Number(flag(argv, 'warm-up') ?? (soak ? 120 : 10));

  const cleanup = await prepareBackend('native', 'load');
  const adminKey = `bench-admin-${randomBytes(16).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    ADMIN_API_KEY: adminKey,
    WRITE_ADMIN_KEY_FILE: 'false',
    REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    CACHE_KEY_PREFIX: `bench-load:${Date.now().toString(36)}:`,
    DEMO_DATA_SCALE: 'small',
    // The load is one key; the per-key limit would turn most of it into 429s.
    RATE_LIMIT_PER_KEY: '0',
  };
  const started: Replica[] = [];
  try {
    // The first replica migrates and loads the demo data; the others start on the migrated database.
    started.push(await startReplica('replica-1', { ...env, DEMO_DATA: 'on' }));
    const auth = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    await waitFor(
      'demo data',
      async () => {
        const status = (await (
          await fetch(`${started[0].url}/ops/demo/status`, { headers: auth })
        ).json()) as {
          state: string;
        };
        return status.state === 'ready';
      },
      600_000,
    );
    for (let i = 2; i <= replicas; i++)
      started.push(await startReplica(`replica-${i}`, { ...env, DEMO_DATA: 'off' }));

    let sequence = 0;
    const body = (): { method: string; path: string; body: string } => {
      const draw = Math.random();
      sequence += 1;
      if (draw < 0.7)
        return {
          method: 'POST',
          path: '/api/documents/search',
          body: JSON.stringify({
            query: SEARCHES[sequence % SEARCHES.length],
            search_type: 'hybrid',
            top_k: 5,
          }),
        };
      if (draw < 0.9)
        return {
          method: 'POST',
          path: '/ops/stage/execute',
          body: JSON.stringify({
            stage_name: 'load',
            tools: [
              {
                id: 'servers',
                tool_name: 'ci_lookup',
                input: { filters: { environment: 'prod', ci_type: 'server' }, limit: 5 },
              },
              {
                tool_name: 'metric_query',
                input: {
                  metric_name: 'cpu_usage',
                  agg: 'avg',
                  time_range: { relative: 'last_24h' },
                  ci_ids: { $ref: 'servers.data.items[*].id' },
                },
              },
            ],
          }),
        };
      return {
        method: 'POST',
        path: '/api/documents',
        body: JSON.stringify({
          filename: `load-${process.pid}-${sequence}.md`,
          content: `# Load note ${sequence}\n\nReplica restart procedure ${sequence}: drain, restart, verify health ${randomBytes(4).toString('hex')}.`,
        }),
      };
    };

    const samples: Array<{ t: number; rss: number[] }> = [];
    const t0 = Date.now();
    const sampler = setInterval(() => {
      samples.push({ t: (Date.now() - t0) / 1000, rss: started.map((r) => rssMb(r.child.pid)) });
    }, sampleSeconds * 1000);
    const load = loadAverage();
    const perReplica = Math.max(1, Math.floor(connections / started.length));
    const results = await Promise.all(
      started.map((replica) =>
        autocannon({
          url: replica.url,
          connections: perReplica,
          duration,
          headers: auth,
          requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, ...body() }) }],
        }),
      ),
    );
    clearInterval(sampler);
    samples.push({ t: (Date.now() - t0) / 1000, rss: started.map((r) => rssMb(r.child.pid)) });

    console.log(`\n# node dist/bench/load-mixed.js ${argv.join(' ')}`);
    console.log(
      `date ${new Date().toISOString()}, node ${process.version}, load average before: ${load}, after: ${loadAverage()}`,
    );
    console.log(
      `${started.length} replica(s), ${perReplica} connections each, ${duration} s, mix search 70% / stage 20% / ingest 10%\n`,
    );
    console.log(
      '| replica | requests | req/s | p50 ms | p99 ms | 2xx | non-2xx | errors | RSS start MB | RSS end MB | RSS max MB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    results.forEach((result, i) => {
      const rss = samples.map((s) => s.rss[i]).filter(Number.isFinite);
      console.log(
        `| ${started[i].name} | ${result.requests.total} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${result['2xx']} | ${result.non2xx} | ${result.errors + result.timeouts} | ${started[i].rss[0].toFixed(0)} | ${rss[rss.length - 1].toFixed(0)} | ${Math.max(...rss).toFixed(0)} |`,
      );
    });
    started.forEach((replica, i) => {
      const after = samples
        .filter((s) => s.t >= warmUpSeconds)
        .map((s): [number, number] => [s.t / 60, s.rss[i]]);
      console.log(
        `${replica.name}: RSS slope after ${warmUpSeconds} s warm-up ${slope(after).toFixed(2)} MB/min over ${after.length} samples; samples (s:MB) ${samples.map((s) => `${s.t.toFixed(0)}:${s.rss[i].toFixed(0)}`).join(' ')}`,
      );
    });
  } finally {
    for (const replica of started) replica.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const replica of started) if (replica.child.exitCode === null) replica.child.kill('SIGKILL');
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
