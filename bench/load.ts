/**
 * Mixed load against the production topology: two API replicas (APP_ROLE=api) and a worker on one
 * native PostgreSQL and a private Redis, all as child processes. Traffic: 70% document search, 20%
 * stage execute (an http tool asset), 10% ingestion, split over both replicas by autocannon.
 * Reports throughput, p50/p99, errors and each process's RSS (sampled every 5 s).
 *
 *   npm run bench:load     node dist/bench/load.js [--replicas 2] [--duration 60] [--connections 8] [--documents 200]
 *   npm run bench:soak     the same with --soak: one replica and the worker for 600 s, RSS every 10 s, and
 *                          each process's RSS slope (MB/min) after a 120 s warm-up: a leak shows as a slope
 *   flags: --sample <s> (RSS sampling), --warm-up <s> (start of the slope)
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { flag, loadAverage } from './support/bench-app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<CannonResult>;

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

const ROOT = path.resolve(__dirname, '..', '..');
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on ${port}`);
}

interface Proc {
  name: string;
  child: ChildProcess;
  base: string;
  output: () => string;
  rss: number[];
  /** Seconds since the load started, one per RSS sample. */
  at: number[];
}

function rssMb(pid: number): number {
  try {
    return Math.round(
      Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
          .toString()
          .trim(),
      ) / 1024,
    );
  } catch {
    return NaN;
  }
}

async function startProcess(name: string, script: string, env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!/listening on|worker running/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${name} did not start:\n${output}`);
    await sleep(100);
  }
  return { name, child, base: `http://127.0.0.1:${port}`, output: () => output, rss: [], at: [] };
}

async function call(base: string, key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- loosely typed API replies
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const WORDS =
  'database failover replica lag restart deploy rollback certificate expiry disk pressure memory leak cache eviction queue backlog latency gateway payment shard index vacuum backup restore alert paging oncall runbook network partition dns timeout kafka consumer'.split(
    ' ',
  );
const pick = () => WORDS[Math.floor(Math.random() * WORDS.length)];
const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
const documentBody = (i: number) =>
  `# Runbook ${i}: ${sentence(3)}\n\n${Array.from({ length: 6 }, () => `${sentence(14)}.`).join('\n\n')}`;

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const num = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const den = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return num / den;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const soak = argv.includes('--soak');
  const replicas = Number(flag(argv, 'replicas') ?? (soak ? 1 : 2));
  const duration = Number(flag(argv, 'duration') ?? (soak ? 600 : 60));
  const sampleSeconds = Number(flag(argv, 'sample') ?? (soak ? 10 : 5));
  const warmUpSeconds = Number(flag(argv, 'warm-up') ?? (soak ? 120 : 10));
  const connections = Number(flag(argv, 'connections') ?? 8);
  const documents = Number(flag(argv, 'documents') ?? 200);
  const adminKey = `ops_${randomBytes(30).toString('base64url')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-load-'));

  const dbName = `ops_load_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const ownerUrl = new URL(ADMIN_URL);
  ownerUrl.pathname = `/${dbName}`;
  const appUrl = new URL(ownerUrl.toString());
  appUrl.username = 'ops_app';

  const redisPort = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await waitForPort(redisPort);

  const toolServer = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ up: true, checked_at: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => toolServer.listen(0, '127.0.0.1', resolve));
  const toolPort = (toolServer.address() as net.AddressInfo).port;

  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: appUrl.toString(),
    DATABASE_MIGRATION_URL: ownerUrl.toString(),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    ADMIN_API_KEY: adminKey,
    WRITE_ADMIN_KEY_FILE: 'false',
    LOG_LEVEL: 'error',
    DEMO_DATA: 'off',
    HTTP_TOOL_ALLOWLIST: `127.0.0.1:${toolPort}`,
    RATE_LIMIT_PER_KEY: '0',
    RATE_LIMIT_PER_TENANT: '0',
  };
  const procs: Proc[] = [];
  const cleanup = async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    redis.kill('SIGKILL');
    toolServer.close();
    const drop = new Client({ connectionString: ADMIN_URL });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await drop.end();
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const dir = (name: string) => mkdtempSync(path.join(dataDir, `${name}-`));
    const apis: Proc[] = [];
    for (let i = 0; i < Math.max(1, replicas); i++) {
      const name = `api-${String.fromCharCode(97 + i)}`;
      apis.push(
        await startProcess(name, 'dist/apps/api/src/main.js', {
          ...env,
          APP_ROLE: 'api',
          DATA_DIR: dir(name),
        }),
      );
    }
    procs.push(...apis);
    procs.push(
      await startProcess('worker', 'dist/apps/api/src/worker.js', {
        ...env,
        APP_ROLE: 'worker',
        DATA_DIR: dir('w'),
      }),
    );
    const a = apis[0];
    const b = apis[apis.length - 1];

    process.stderr.write(`seeding ${documents} documents and a tool...\n`);
    const ids: string[] = [];
    for (let i = 0; i < documents; i++) {
      const created = await call(a.base, adminKey, 'POST', '/api/documents', {
        filename: `seed-${i}.md`,
        content: documentBody(i),
      });
      if (created.status !== 202) throw new Error(`seeding failed: ${JSON.stringify(created)}`);
      ids.push(created.body.id as string);
    }
    const tool = await call(a.base, adminKey, 'POST', '/api/assets', {
      asset_type: 'tool',
      name: 'service_probe',
      description: 'Probes a service',
      tool_type: 'http',
      tool_config: { method: 'GET', url: `http://127.0.0.1:${toolPort}/probe`, timeout_ms: 2000 },
      tool_input_schema: { type: 'object', properties: {} },
      tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' } } },
    });
    await call(a.base, adminKey, 'POST', `/api/assets/${tool.body.id}/publish`);
    for (;;) {
      const last = await call(b.base, adminKey, 'GET', `/api/documents/${ids[ids.length - 1]}`);
      if (last.body.status === 'done') break;
      if (last.body.status === 'failed')
        throw new Error(`seed document failed: ${JSON.stringify(last.body)}`);
      await sleep(500);
    }

    const loadStart = Date.now();
    const sample = () => {
      for (const p of procs) {
        p.rss.push(rssMb(p.child.pid!));
        p.at.push((Date.now() - loadStart) / 1000);
      }
    };
    sample();
    const sampler = setInterval(sample, sampleSeconds * 1000);

    let ingested = 0;
    const headers = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    const mixed = (request: Record<string, unknown>) => {
      const roll = Math.random();
      if (roll < 0.7) {
        return {
          ...request,
          method: 'POST',
          path: '/api/documents/search',
          headers,
          body: JSON.stringify({ query: sentence(3), top_k: 5 }),
        };
      }
      if (roll < 0.9) {
        return {
          ...request,
          method: 'POST',
          path: '/ops/stage/execute',
          headers,
          body: JSON.stringify({ stage_name: 'probe', tools: [{ tool_name: 'service_probe', input: {} }] }),
        };
      }
      ingested++;
      return {
        ...request,
        method: 'POST',
        path: '/api/documents',
        headers,
        body: JSON.stringify({
          filename: `load-${ingested}-${Math.random().toString(36).slice(2)}.md`,
          content: documentBody(ingested),
        }),
      };
    };
    process.stderr.write(
      `load: ${duration} s, ${connections} connections per replica, load average ${loadAverage()}\n`,
    );
    const results = await Promise.all(
      apis.map((p) =>
        autocannon({ url: p.base, connections, duration, requests: [{ setupRequest: mixed }] }),
      ),
    );
    clearInterval(sampler);
    sample();

    const rows = results.map((r, i) => ({
      replica: apis[i].name,
      req_per_s: Math.round(r.requests.average * 10) / 10,
      total: r.requests.total,
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      statuses: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
    }));
    const memory = procs.map((p) => ({
      process: p.name,
      rss_start_mb: p.rss[0],
      rss_end_mb: p.rss[p.rss.length - 1],
      rss_max_mb: Math.max(...p.rss.filter((v) => Number.isFinite(v))),
      rss_slope_mb_per_min_after_warm_up: Number(
        slope(
          p.rss
            .map((rss, i): [number, number] => [p.at[i] / 60, rss])
            .filter(([minutes, rss]) => minutes * 60 >= warmUpSeconds && Number.isFinite(rss)),
        ).toFixed(3),
      ),
      samples: p.rss.map((rss, i) => `${p.at[i].toFixed(0)}:${rss}`).join(' '),
    }));
    process.stdout.write(
      `${JSON.stringify({ date: new Date().toISOString(), mode: soak ? 'soak' : 'load', replicas: apis.length, duration, connections_per_replica: connections, sample_seconds: sampleSeconds, warm_up_seconds: warmUpSeconds, seed_documents: documents, ingested_during_load: ingested, load_average: loadAverage(), cpus: os.cpus().length, rows, memory }, null, 2)}\n`,
    );
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
