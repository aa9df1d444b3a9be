/**
 * Loaded into the server by `bench/first-start.ts --trace` (`node --require`): records where a request's
 * time goes while the demo loads, and writes it to OPS_BENCH_TRACE (JSON) when the process exits:
 * - every HTTP request the server handled (wall-clock start and end, method and URL);
 * - every lease of the embedded connection (priority, when it was asked for, granted and released);
 * - every event-loop stall over 10 ms (a 2 ms timer that fired late: WASM statements and CPU work on the
 *   main thread both show up here) and the event-loop delay histogram.
 * The bench matches them with its own requests by wall-clock time. Bench-only: nothing in the product
 * loads it.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

interface Lease {
  priority: string;
  asked: number;
  granted: number;
  released: number;
  /** Background leases: the product's frames of the stack that asked for it (which work held it). */
  site?: string;
}

const out = process.env.OPS_BENCH_TRACE;
if (out) {
  const origin = Date.now() - performance.now();
  const wall = () => origin + performance.now();
  const requests: Array<{ start: number; end: number; url: string }> = [];
  const leases: Lease[] = [];
  const stalls: Array<{ at: number; ms: number }> = [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();

  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the server as `this` below
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const entry = { start: wall(), end: 0, url: `${request.method} ${request.url}` };
      response.once('finish', () => {
        entry.end = wall();
        requests.push(entry);
      });
    }
    return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;

  // The same module instance the server loads (dist/libs/...), patched before the server starts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const scheduler = require(
    path.resolve(__dirname, '../libs/platform/src/database/embedded-scheduler.js'),
  ) as {
    EmbeddedScheduler: { prototype: { acquire: (priority?: string) => Promise<() => void> } };
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const priority = require(path.resolve(__dirname, '../libs/platform/src/database/database-priority.js')) as {
    currentDatabasePriority: () => string;
  };
  const acquire = scheduler.EmbeddedScheduler.prototype.acquire;
  scheduler.EmbeddedScheduler.prototype.acquire = async function (this: unknown, p?: string) {
    const lease: Lease = {
      priority: p ?? priority.currentDatabasePriority(),
      asked: wall(),
      granted: 0,
      released: 0,
    };
    const release = await acquire.call(this, p);
    lease.granted = wall();
    return () => {
      if (!lease.released) {
        lease.released = wall();
        leases.push(lease);
      }
      release();
    };
  };

  // Background statements by their SQL's first words: which work holds the connection how long.
  const statements: Array<{ sql: string; start: number; end: number }> = [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const runner = require('typeorm/driver/postgres/PostgresQueryRunner.js') as {
    PostgresQueryRunner: { prototype: { query: (...args: unknown[]) => Promise<unknown> } };
  };
  const query = runner.PostgresQueryRunner.prototype.query;
  runner.PostgresQueryRunner.prototype.query = async function (this: unknown, ...args: unknown[]) {
    if (priority.currentDatabasePriority() !== 'background') return query.apply(this, args);
    const entry = { sql: String(args[0]).replace(/\s+/g, ' ').trim().slice(0, 70), start: wall(), end: 0 };
    try {
      return await query.apply(this, args);
    } finally {
      entry.end = wall();
      statements.push(entry);
    }
  };

  let expected = performance.now() + 2;
  setInterval(() => {
    const now = performance.now();
    if (now - expected > 10) stalls.push({ at: wall() - (now - expected), ms: now - expected });
    expected = now + 2;
  }, 2).unref();

  // Nest's shutdown hook re-raises SIGTERM once the app is closed (no 'exit' event): write first.
  const write = () =>
    writeFileSync(
      out,
      JSON.stringify({
        requests,
        leases,
        stalls,
        statements,
        loop: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      }),
    );
  const onSignal = () => {
    process.removeListener('SIGTERM', onSignal);
    write();
  };
  process.on('SIGTERM', onSignal);
  process.on('exit', write);
}
