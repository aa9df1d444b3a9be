/**
 * `npm run bench:runaway`: how the embedded backend behaves while an sql tool runs a query that burns
 * CPU (security finding 4). Boots the real HTTP app on a fresh embedded data directory, seeds one
 * tenant's configuration items, runs a CPU-bound sql tool with a 2 s timeout and polls /health/live
 * (no database) and /health/ready (one database round trip) every 50 ms meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { AuthService, runAsSystem, runAsTenant } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import { SqlToolFactory } from '@app/ops';
import { createApp } from '../apps/api/src/bootstrap';
import { validateEnvironment } from '../apps/api/src/config-schemas';
import { flag, prepareBackend } from './support/bench-app';

const BURN = `SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c,
  configuration_items d WHERE length(a.name || b.name || c.name || d.name) > 0`;

async function poll(url: string, stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!stop()) {
    const started = performance.now();
    await fetch(url).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return times.sort((a, b) => a - b);
}

const summary = (times: number[]) =>
  `n=${times.length} p50=${times[Math.floor(times.length / 2)]?.toFixed(1)} ms max=${times.at(-1)?.toFixed(1)} ms`;

async function main(): Promise<void> {
  const timeoutMs = Number(flag(process.argv, 'timeout-ms') ?? 2000);
  const cleanup = await prepareBackend('embedded', 'runaway');
  process.env.DEMO_DATA = 'off';
  const env = validateEnvironment(process.env);
  const app = await createApp({ env });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  try {
    const { tenant } = await runAsSystem('bench: create the runaway tenant', () =>
      app.get(AuthService).createTenant('runaway', 'runaway', undefined),
    );
    await runAsTenant(tenant.id, () =>
      app.get(DataSource).query(
        `INSERT INTO ops_configuration_items (tenant_id, name, ci_type, environment, status)
         SELECT $1, 'ci-' || i, 'server', 'prod', 'running' FROM generate_series(1, 120) AS i`,
        [tenant.id],
      ),
    );
    const registry = app.get(ToolRegistry);
    registry.setDynamicTool(
      tenant.id,
      app.get(SqlToolFactory).create({
        name: 'burn',
        description: 'CPU-bound query',
        kind: 'sql',
        tool_config: { query: BURN, timeout_ms: timeoutMs },
        tool_input_schema: { type: 'object', properties: {}, additionalProperties: false },
        tool_output_schema: null,
      }),
    );
    let done = false;
    const live = poll(`${base}/health/live`, () => done);
    const ready = poll(`${base}/health/ready`, () => done);
    const started = performance.now();
    const result = await runAsTenant(tenant.id, () =>
      registry.execute(
        {
          tenantId: tenant.id,
          userId: 'bench',
          requestId: randomUUID(),
          traceId: 'bench',
          deadline: Date.now() + 60_000,
          signal: new AbortController().signal,
        },
        'burn',
        {},
      ),
    );
    const toolMs = performance.now() - started;
    const back = performance.now();
    await app.get(DataSource).query('SELECT 1');
    const recoveredMs = performance.now() - back + toolMs;
    await new Promise((resolve) => setTimeout(resolve, 300));
    done = true;
    const [liveTimes, readyTimes] = await Promise.all([live, ready]);
    process.stdout.write(
      [
        `sql tool (timeout ${timeoutMs} ms): success=${result.success} ${result.error ?? ''} after ${toolMs.toFixed(0)} ms`,
        `database answering again ${recoveredMs.toFixed(0)} ms after the tool started`,
        `/health/live  while it ran: ${summary(liveTimes)}`,
        `/health/ready while it ran: ${summary(readyTimes)}`,
      ].join('\n') + '\n',
    );
  } finally {
    await app.close();
    await cleanup();
  }
}

void main();
