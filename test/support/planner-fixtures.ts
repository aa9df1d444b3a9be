import { sleep } from './processes';
import type { HttpResult, TestApp } from './test-app';

export const SEED_QUERY = '지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개를 보여줘';

/** [start, end) of the calendar week before `now` (UTC, weeks start on Monday), as the planner reads "지난 주". */
export function lastWeekOf(now: Date): { start: Date; end: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * 86_400_000;
  return { start: new Date(monday - 7 * 86_400_000), end: new Date(monday) };
}

/** The top prod servers by average hourly cpu_usage in a window, computed straight from the tables. */
export const TOP_PROD_SERVERS_BY_CPU_SQL = `SELECT ci.name, avg(m.value) AS value FROM ops_metric_samples m
  JOIN ops_configuration_items ci ON ci.id = m.ci_id
  WHERE m.tenant_id = $1 AND ci.tenant_id = $1 AND ci.environment = 'prod' AND ci.ci_type = 'server'
    AND m.metric_name = 'cpu_usage' AND m.step_seconds = 3600 AND m.ts >= $2 AND m.ts < $3
  GROUP BY ci.name ORDER BY avg(m.value) DESC LIMIT $4`;

/**
 * `POST /ops/plan` until the plan is made by the trained planner (`explain.classifier` is `ready`): after a
 * publish the planner trains on the tenant's new knowledge in the background, and a plan made meanwhile
 * is the rules' alone (it says so). What a test asserts is then the plan every later question gets.
 */
export async function planWhenTrained(
  app: Pick<TestApp, 'request'>,
  body: Record<string, unknown>,
  key?: string,
): Promise<HttpResult<any>> {
  for (let i = 0; ; i++) {
    const res = await app.request('POST', '/ops/plan', { key, body: { ...body, explain: true } });
    if (res.status !== 200 || res.body.explain?.classifier === 'ready' || i >= 120) return res;
    await sleep(250);
  }
}
