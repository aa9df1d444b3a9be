/**
 * `npm run bench:first-start`: the quick start as a new user meets it. Starts the built server
 * (`dist/apps/api/src/main.js`) as a child process on a fresh embedded data directory, with the demo load
 * on (DEMO_DATA=auto), and reports:
 * - seconds to "listening", to `/health/ready` = 200, to the planner's knowledge being published (a plan
 *   without the `knowledge_incomplete` warning), and to the demo load being ready;
 * - the latency of ordinary requests made every 250 ms while the demo loads (GET /api/keys, a document
 *   search, a plan): p50, p95, max.
 * Then it sends the same request mix for 20 s after the demo load (the p95 the during-load p95 is compared
 * with), stops the server and starts it again on the same data directory (the restart, to ready).
 * `--cpu-load N` runs N busy processes beside it the whole time (a loaded machine); the load average is
 * printed at the start and the end. `--restarts N` (default 1) restarts it N times and reports the median
 * (each restart's time to ready is printed, with the load average at that moment).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const MAIN = path.resolve(__dirname, '../apps/api/src/main.js');

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
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;

const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

function startServer(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { output: '' };
  child.stdout.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
  return { child, state };
}

async function stopServer(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const cpuIndex = process.argv.indexOf('--cpu-load');
  const cpuLoad = cpuIndex > 0 ? Number(process.argv[cpuIndex + 1]) : 0;
  const restartsIndex = process.argv.indexOf('--restarts');
  const restarts = restartsIndex > 0 ? Math.max(1, Number(process.argv[restartsIndex + 1])) : 1;
  const burners = Array.from({ length: cpuLoad }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  if (cpuLoad > 0) await sleep(5000);
  const loadAtStart = loadAverage();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ops-first-start-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.NODE_ENV;
  // --trace: the first start records requests, leases and event-loop stalls (bench/first-start-trace.ts).
  const traceFile = process.argv.includes('--trace')
    ? path.join(dataDir, '..', `${path.basename(dataDir)}.trace.json`)
    : '';
  const firstEnv = traceFile
    ? {
        ...env,
        OPS_BENCH_TRACE: traceFile,
        NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${path.resolve(__dirname, 'first-start-trace.js')}`,
      }
    : env;
  let started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let { child, state } = startServer(firstEnv);
  const spans: Span[] = [];
  const marks: Record<string, number> = {};
  try {
    const output = () => state.output;
    while (!/listening on/.test(output())) {
      if (child.exitCode !== null) throw new Error(`server exited:\n${output()}`);
      if (seconds() > 300) throw new Error('server did not start in 300 s');
      await sleep(50);
    }
    marks.listening = seconds();
    while ((await fetch(`${base}/health/ready`).catch(() => null))?.status !== 200) await sleep(100);
    marks.ready = seconds();
    const key = readFileSync(path.join(dataDir, 'admin-key'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const requests: Array<() => Promise<Response>> = [
      () => fetch(`${base}/api/keys`, { headers }),
      () =>
        fetch(`${base}/api/documents/search`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: 'rollback runbook', top_k: 5 }),
        }),
      () =>
        fetch(`${base}/ops/plan`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: 'top 5 prod servers by cpu last week' }),
        }),
    ];
    const latencies: number[] = [];
    const byKind: number[][] = requests.map(() => []);
    let errors = 0;
    for (let i = 0; ; i++) {
      const t0 = performance.now();
      const start = Date.now();
      const response = await requests[i % requests.length]();
      const body = (await response.json()) as { warnings?: string[] };
      latencies.push(performance.now() - t0);
      spans.push({ kind: i % requests.length, start, end: Date.now(), phase: 'during' });
      byKind[i % requests.length].push(performance.now() - t0);
      if (response.status >= 500) errors++;
      if (marks.knowledge === undefined && i % requests.length === 2 && response.ok) {
        if (!(body.warnings ?? []).some((w) => w.startsWith('knowledge_incomplete')))
          marks.knowledge = seconds();
      }
      if (i % 8 === 0) {
        const health = (await (await fetch(`${base}/health/ready`)).json()) as {
          checks: { demo_data: { state?: string; progress_percent?: number } };
        };
        if (health.checks.demo_data.state === 'ready') break;
        if (health.checks.demo_data.state === 'failed') throw new Error('demo load failed');
      }
      if (seconds() > 900) throw new Error('demo load did not finish in 900 s');
      await sleep(250);
    }
    marks.demo_ready = seconds();
    latencies.sort((a, b) => a - b);
    // The same mix after the load: what "p95 during the load" is compared with.
    const after: number[] = [];
    const afterUntil = performance.now() + 20_000;
    for (let i = 0; performance.now() < afterUntil; i++) {
      const t0 = performance.now();
      const start = Date.now();
      const response = await requests[i % requests.length]();
      await response.arrayBuffer();
      after.push(performance.now() - t0);
      spans.push({ kind: i % requests.length, start, end: Date.now(), phase: 'after' });
      await sleep(250);
    }
    after.sort((a, b) => a - b);
    const restartTimes: number[] = [];
    for (let r = 0; r < restarts; r++) {
      await stopServer(child);
      if (r === 0 && traceFile && existsSync(traceFile)) {
        traceReport(JSON.parse(readFileSync(traceFile, 'utf8')) as Trace, spans);
        rmSync(traceFile, { force: true });
      }
      started = performance.now();
      ({ child, state } = startServer(env));
      while ((await fetch(`${base}/health/ready`).catch(() => null))?.status !== 200) {
        if (child.exitCode !== null) throw new Error(`server exited on restart:\n${output()}`);
        await sleep(50);
      }
      restartTimes.push(seconds());
      if (restarts > 1)
        console.log(`restart ${r + 1}: ready ${seconds().toFixed(1)} s, load average ${loadAverage()}`);
    }
    marks.restart_ready = restartTimes.sort((a, b) => a - b)[Math.floor(restartTimes.length / 2)];
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, ${cpuLoad} busy processes beside it`);
    console.log(`load average at the start ${loadAtStart}, at the end ${loadAverage()}`);
    console.log(
      `| listening | /health/ready | planner knowledge | demo ready | restart to ready${restarts > 1 ? ` (median of ${restarts})` : ''} |`,
    );
    console.log('|---|---|---|---|---|');
    const s = (n?: number) => (n === undefined ? '-' : `${n.toFixed(1)} s`);
    console.log(
      `| ${s(marks.listening)} | ${s(marks.ready)} | ${s(marks.knowledge)} | ${s(marks.demo_ready)} | ` +
        `${s(marks.restart_ready)} |`,
    );
    const p95During = pct(latencies, 0.95);
    const p95After = pct(after, 0.95);
    console.log(
      `requests after the demo load: n=${after.length} p50=${pct(after, 0.5).toFixed(0)} ms ` +
        `p95=${p95After.toFixed(0)} ms; p95 during / after = ${(p95During / p95After).toFixed(1)}x`,
    );
    console.log(
      `requests during the demo load: n=${latencies.length} p50=${pct(latencies, 0.5).toFixed(0)} ms ` +
        `p95=${pct(latencies, 0.95).toFixed(0)} ms max=${latencies.at(-1)?.toFixed(0)} ms, 5xx=${errors}`,
    );
    for (const [index, name] of ['GET /api/keys', 'POST /api/documents/search', 'POST /ops/plan'].entries()) {
      const sorted = byKind[index].sort((a, b) => a - b);
      console.log(`  ${name}: p50=${pct(sorted, 0.5).toFixed(0)} ms p95=${pct(sorted, 0.95).toFixed(0)} ms`);
    }
  } finally {
    await stopServer(child);
    for (const burner of burners) burner.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Span {
  kind: number;
  start: number;
  end: number;
  phase: 'during' | 'after';
}

interface Trace {
  requests: Array<{ start: number; end: number; url: string }>;
  leases: Array<{ priority: string; asked: number; granted: number; released: number; site?: string }>;
  stalls: Array<{ at: number; ms: number }>;
  statements: Array<{ sql: string; start: number; end: number }>;
  loop: { p50: number; p99: number; max: number };
}

/** Time of [a0, a1] that intervals cover (they may overlap each other only slightly: one connection). */
const overlap = (a0: number, a1: number, intervals: Array<[number, number]>) =>
  intervals.reduce((sum, [b0, b1]) => sum + Math.max(0, Math.min(a1, b1) - Math.max(a0, b0)), 0);

/**
 * Where the bench's requests spent their time (--trace): for the slowest tenth of the requests during the
 * demo load and for all of them before and after it, the mean of: time outside the server's handler (the
 * request waiting to be read, the response to be delivered), the request's own connection leases (wait and
 * hold), the background leases and event-loop stalls inside the request's span.
 */
function traceReport(trace: Trace, spans: Span[]): void {
  const background = trace.leases.filter((l) => l.priority === 'background');
  const foreground = trace.leases.filter((l) => l.priority !== 'background');
  const bgHolds: Array<[number, number]> = background.map((l) => [l.granted, l.released]);
  const stalls: Array<[number, number]> = trace.stalls.map((s) => [s.at, s.at + s.ms]);
  const breakdown = (span: Span) => {
    const server = trace.requests.find((r) => r.start >= span.start - 5 && r.end <= span.end + 5);
    const s0 = server?.start ?? span.start;
    const s1 = server?.end ?? span.end;
    const own = foreground.filter((l) => l.asked >= s0 && l.released <= s1 + 1);
    return {
      total: span.end - span.start,
      outside: span.end - span.start - (s1 - s0),
      ownWait: own.reduce((sum, l) => sum + l.granted - l.asked, 0),
      ownHold: own.reduce((sum, l) => sum + l.released - l.granted, 0),
      leases: own.length,
      backgroundInSpan: overlap(span.start, span.end, bgHolds),
      stallsInSpan: overlap(span.start, span.end, stalls),
    };
  };
  const mean = (rows: Array<ReturnType<typeof breakdown>>) => {
    const keys = Object.keys(rows[0] ?? {}) as Array<keyof ReturnType<typeof breakdown>>;
    return keys
      .map((k) => `${k} ${(rows.reduce((s, r) => s + r[k], 0) / rows.length).toFixed(1)}`)
      .join(', ');
  };
  const during = spans.filter((s) => s.phase === 'during');
  const slow = [...during]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, Math.ceil(during.length / 10));
  console.log(`trace: slowest 10% during (n=${slow.length}) mean ms: ${mean(slow.map(breakdown))}`);
  console.log(`trace: all during (n=${during.length}) mean ms: ${mean(during.map(breakdown))}`);
  const after = spans.filter((s) => s.phase === 'after');
  console.log(`trace: all after (n=${after.length}) mean ms: ${mean(after.map(breakdown))}`);
  const loadStart = during[0]?.start ?? 0;
  const loadEnd = during.at(-1)?.end ?? 0;
  const inLoad = background.filter((l) => l.granted >= loadStart && l.released <= loadEnd);
  const holds = inLoad.map((l) => l.released - l.granted).sort((a, b) => a - b);
  console.log(
    `trace: background leases during the load n=${holds.length} hold p50 ${pct(holds, 0.5)?.toFixed(1)} ` +
      `p95 ${pct(holds, 0.95)?.toFixed(1)} max ${holds.at(-1)?.toFixed(1)} ms, sum ${(holds.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s of ${((loadEnd - loadStart) / 1000).toFixed(1)} s`,
  );
  const bySite = new Map<string, number[]>();
  for (const st of trace.statements.filter((x) => x.start >= loadStart && x.end <= loadEnd)) {
    const site = st.sql.replace(/\$\d+/g, '$').slice(0, 60);
    bySite.set(site, [...(bySite.get(site) ?? []), st.end - st.start]);
  }
  for (const [site, times] of [...bySite]
    .sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0))
    .slice(0, 12)) {
    times.sort((a, b) => a - b);
    console.log(
      `trace:   n=${times.length} sum ${(times.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s p50 ${pct(times, 0.5).toFixed(0)} ` +
        `p95 ${pct(times, 0.95).toFixed(0)} max ${times.at(-1)?.toFixed(0)} ms over 100 ms: ${times.filter((t) => t > 100).length}  ${site}`,
    );
  }
  const loadStalls = trace.stalls.filter((s) => s.at >= loadStart && s.at <= loadEnd);
  const inBg = loadStalls.reduce((sum, s) => sum + overlap(s.at, s.at + s.ms, bgHolds), 0);
  const total = loadStalls.reduce((sum, s) => sum + s.ms, 0);
  const sortedStalls = loadStalls.map((s) => s.ms).sort((a, b) => a - b);
  console.log(
    `trace: event-loop stalls > 10 ms during the load: n=${loadStalls.length}, p95 ${pct(sortedStalls, 0.95)?.toFixed(1)} max ${sortedStalls.at(-1)?.toFixed(1)} ms, ` +
      `${(total / 1000).toFixed(1)} s in all, of which ${(inBg / 1000).toFixed(1)} s inside background leases; ` +
      `loop delay p50 ${trace.loop.p50.toFixed(1)} p99 ${trace.loop.p99.toFixed(1)} max ${trace.loop.max.toFixed(1)} ms (whole run)`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
