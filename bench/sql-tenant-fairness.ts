/**
 * `npm run bench:sql-fairness`: what one tenant's sql tools do to another tenant's reads (issue 27).
 * Boots the app on a fresh database of one backend (`--backend embedded|native`), seeds a victim and an
 * attacker tenant, then measures the victim's indexed reads, started open-loop every `1000 / --rate`
 * ms (a stalled database delays every read due meanwhile, so stalls are not under-sampled): first with
 * nothing else running (`--idle-s`), then while `--attackers` loops run the attacker's heaviest sql tool
 * that passes the guard and the plan-cost cap, back to back (`--attack-s`; with the default
 * SQL_TOOL_MAX_CONCURRENT_PER_TENANT of 1 one loop runs while the other waits or is refused, which the
 * attacker line counts as `RATE_LIMITED (busy)`, apart from the time budget's `(budget)`). The attack of the issue
 * (an array_agg/unnest cross join) is tried first and must be refused when the tool is built.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuthService, runAsSystem, runAsTenant } from '@app/platform';
import { ToolRegistry } from '@app/tools';
import { SqlToolFactory } from '@app/ops';
import { Backend, flag, loadAverage, startBenchApp } from './support/bench-app';

const ISSUE_ATTACK = `WITH a AS (SELECT array_agg(id) AS ids FROM configuration_items)
  SELECT count(*) AS n FROM a, unnest(a.ids) x, unnest(a.ids) y, unnest(a.ids) z`;
/** 300^3 = 27 million rows; the planner sees it (cost ~ 0.5 M, under the 2 M cap), the row counter stops it. */
const CROSS_JOIN = `SELECT count(*) AS n FROM configuration_items a, configuration_items b, configuration_items c
  WHERE length(a.name || b.name || c.name) > 0`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const describe = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? NaN,
  };
};

async function main(): Promise<void> {
  const backend = (flag(process.argv, 'backend') ?? 'embedded') as Backend;
  const idleSeconds = Number(flag(process.argv, 'idle-s') ?? 15);
  const attackSeconds = Number(flag(process.argv, 'attack-s') ?? 60);
  const rate = Number(flag(process.argv, 'rate') ?? 20);
  const attackers = Number(flag(process.argv, 'attackers') ?? 2);
  const bench = await startBenchApp(backend, 'sql_fairness');
  const { app, tenantId: victim } = bench;
  try {
    const db = app.get(DataSource);
    const { tenant: attackerTenant } = await runAsSystem('bench: create the attacker tenant', () =>
      app.get(AuthService).createTenant(`attacker-${Date.now().toString(36)}`, 'attacker', undefined),
    );
    const attacker = attackerTenant.id;
    for (const [tenant, count] of [
      [victim, 200],
      [attacker, 300],
    ] as const)
      await runAsTenant(tenant, () =>
        db.query(
          `INSERT INTO ops_configuration_items (tenant_id, name, ci_type, environment, status)
           SELECT $1, 'ci-' || i, 'server', 'prod', 'running' FROM generate_series(1, $2::int) AS i`,
          [tenant, count],
        ),
      );

    const factory = app.get(SqlToolFactory);
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    const spec = (name: string, query: string) => ({
      name,
      description: 'attack',
      kind: 'sql' as const,
      tool_config: { query, timeout_ms: 60_000 },
      tool_input_schema: schema,
      tool_output_schema: null,
    });
    let issueAttack = 'accepted';
    try {
      factory.create(spec('issue_attack', ISSUE_ATTACK));
    } catch (error) {
      const issues = (error as { details?: { issues?: Array<{ message: string }> } }).details?.issues;
      issueAttack = `refused: ${issues?.[0]?.message.slice(0, 90) ?? (error as Error).message}`;
    }
    const registry = app.get(ToolRegistry);
    registry.setDynamicTool(attacker, factory.create(spec('cross_join', CROSS_JOIN)));

    const read = () =>
      runAsTenant(victim, () =>
        db.query(`SELECT id, name FROM ops_configuration_items WHERE tenant_id = $1 AND name = $2`, [
          victim,
          `ci-${1 + Math.floor(Math.random() * 200)}`,
        ]),
      );
    /** Starts a read every 1000/rate ms for `seconds`, whatever the earlier ones are doing. */
    let trace: Array<[number, number]> | undefined;
    const measure = async (seconds: number): Promise<number[]> => {
      const times: number[] = [];
      const pending: Array<Promise<void>> = [];
      const start = performance.now();
      for (let k = 0; k < seconds * rate; k++) {
        const due = start + (k * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        pending.push(
          read().then(() => {
            times.push(performance.now() - due);
            if (trace) trace.push([Math.floor((due - start) / 1000), performance.now() - due]);
          }),
        );
      }
      await Promise.all(pending);
      return times;
    };

    for (let k = 0; k < 20; k++) await read();
    const idle = describe(await measure(idleSeconds));

    let stop = false;
    const outcomes = new Map<string, number>();
    let attackMs = 0;
    const attack = async () => {
      while (!stop) {
        const started = performance.now();
        const result = await runAsTenant(attacker, () =>
          registry.execute(
            {
              tenantId: attacker,
              userId: 'bench',
              requestId: randomUUID(),
              traceId: 'bench',
              deadline: Date.now() + 120_000,
              signal: new AbortController().signal,
            },
            'cross_join',
            {},
          ),
        );
        const details = result.error_details as Record<string, unknown> | undefined;
        let code = result.success ? 'ok' : ((details?.code as string | undefined) ?? 'error');
        // Which limit refused it: the tenant's running query (busy) or its hourly database time (budget).
        if (code === 'RATE_LIMITED')
          code += details && 'max_concurrent_per_tenant' in details ? ' (busy)' : ' (budget)';
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
        if (code.startsWith('RATE_LIMITED')) await sleep(100);
        else attackMs += performance.now() - started;
      }
    };
    if (process.argv.includes('--trace')) trace = [];
    const loops = Array.from({ length: attackers }, () => attack());
    const load = describe(await measure(attackSeconds));
    stop = true;
    await Promise.all(loops);

    const ms = (n: number) => `${n.toFixed(1)} ms`;
    if (trace) {
      const worst = new Map<number, number>();
      for (const [second, latency] of trace) worst.set(second, Math.max(worst.get(second) ?? 0, latency));
      process.stdout.write(
        `worst read per second: ${[...worst].map(([s, l]) => `${s}:${l.toFixed(0)}`).join(' ')}\n`,
      );
    }
    process.stdout.write(
      [
        `backend ${backend}, load average ${loadAverage()}, reads ${rate}/s open-loop, ${attackers} attacker loops`,
        `issue payload (array_agg/unnest cross join): ${issueAttack}`,
        `victim reads idle     (${idleSeconds} s): n=${idle.n} p50=${ms(idle.p50)} p95=${ms(idle.p95)} max=${ms(idle.max)}`,
        `victim reads attacked (${attackSeconds} s): n=${load.n} p50=${ms(load.p50)} p95=${ms(load.p95)} max=${ms(load.max)}`,
        `p95 attacked / idle: ${(load.p95 / idle.p95).toFixed(2)}x`,
        `attacker: ${[...outcomes].map(([code, n]) => `${code} x${n}`).join(', ')}; ${(attackMs / 1000).toFixed(1)} s in calls not refused (a wait for the tenant's slot included)`,
      ].join('\n') + '\n',
    );
  } finally {
    await bench.close();
  }
}

void main();
