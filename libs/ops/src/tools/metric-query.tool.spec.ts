import type { ToolContext } from '@app/tools';
import type { ItemAggregate, MetricRepository, MetricScope, SeriesPoint } from '../data/metric.repository';
import { MetricQueryTool } from './metric-query.tool';

const HOUR = 3_600_000;
const TENANT = 'tenant-1';

/** The metric store as the tool sees it: records every scope it is asked about. */
class FakeMetrics {
  readonly scopes: Array<{ call: string; scope: MetricScope; extra?: unknown }> = [];
  constructor(
    private readonly fineStart: Date | null,
    private readonly items: ItemAggregate[] = [],
    private readonly points: SeriesPoint[] = [],
  ) {}
  fineWindowStart(): Promise<Date | null> {
    return Promise.resolve(this.fineStart);
  }
  perItem(scope: MetricScope, order: string, limit: number): Promise<ItemAggregate[]> {
    this.scopes.push({ call: 'perItem', scope, extra: { order, limit } });
    return Promise.resolve(this.items.map((i) => ({ ...i })));
  }
  overall(scope: MetricScope) {
    this.scopes.push({ call: 'overall', scope });
    const count = this.items.reduce((n, i) => n + i.sample_count, 0);
    return Promise.resolve({ value: count ? 42 : null, sample_count: count, items: this.items.length });
  }
  series(scope: MetricScope, bucketSeconds: number, perItem: boolean): Promise<SeriesPoint[]> {
    this.scopes.push({ call: 'series', scope, extra: { bucketSeconds, perItem } });
    return Promise.resolve(this.points);
  }
}

const context = { tenantId: TENANT } as ToolContext;
const item = (id: string, value: number): ItemAggregate => ({
  ci_id: id,
  ci_name: `prod-${id}`,
  ci_type: 'server',
  environment: 'prod',
  value,
  sample_count: 24,
});
const defaults = { agg: 'avg', group_by: 'item', top_n: 10, order: 'desc', resolution: 'auto' };

async function run(fake: FakeMetrics, input: Record<string, unknown>) {
  const tool = new MetricQueryTool(fake as unknown as MetricRepository);
  return tool.execute(context, { metric_name: 'cpu_usage', ...defaults, ...input });
}

describe('metric_query', () => {
  const recentFine = () => new Date(Date.now() - 30 * HOUR);

  it('reads 5-minute samples for a window of at most a day they cover, hourly ones otherwise', async () => {
    const fake = new FakeMetrics(recentFine(), [item('a', 10)]);
    const day = await run(fake, { time_range: { relative: 'last_24h' } });
    expect(day.data).toMatchObject({ resolution_seconds: 300 });
    const week = await run(fake, { time_range: { relative: 'last_7d' } });
    expect(week.data).toMatchObject({ resolution_seconds: 3600 });
    expect(week.warnings).toEqual([]);
  });

  it('falls back to hourly samples when 5-minute ones do not reach back far enough, or do not exist', async () => {
    const lateFine = new FakeMetrics(new Date(Date.now() - 2 * HOUR), [item('a', 10)]);
    expect((await run(lateFine, { time_range: { relative: 'last_6h' } })).data).toMatchObject({
      resolution_seconds: 3600,
    });
    const none = new FakeMetrics(null, [item('a', 10)]);
    expect((await run(none, { time_range: { relative: 'last_1h' } })).data).toMatchObject({
      resolution_seconds: 3600,
    });
  });

  it('warns when a sub-hour bucket has to be built from hourly samples', async () => {
    const fake = new FakeMetrics(recentFine(), [item('a', 10)]);
    const result = await run(fake, { time_range: { relative: 'last_7d' }, bucket: '15m' });
    expect(result.data).toMatchObject({ resolution_seconds: 3600 });
    expect(result.warnings).toEqual([
      '5-minute samples do not cover the window; the series uses hourly samples.',
    ]);
  });

  it('honours a forced resolution: 1h always hourly, 5m fine with a warning where there is no data', async () => {
    const fake = new FakeMetrics(recentFine(), [item('a', 10)]);
    expect((await run(fake, { resolution: '1h', time_range: { relative: 'last_1h' } })).data).toMatchObject({
      resolution_seconds: 3600,
    });
    const forced = await run(fake, { resolution: '5m', time_range: { relative: 'last_7d' } });
    expect(forced.data).toMatchObject({ resolution_seconds: 300 });
    expect(forced.warnings?.[0]).toMatch(
      /^5-minute samples start at .*earlier parts of the window have no data\.$/,
    );
  });

  it('scopes the query to the tenant, the metric, the window and the items asked for', async () => {
    const fake = new FakeMetrics(null, [item('a', 10)]);
    await run(fake, {
      agg: 'p95',
      top_n: 3,
      order: 'asc',
      time_range: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' },
      ci_filter: { environment: 'prod' },
    });
    const [{ scope, extra }] = fake.scopes;
    expect(scope).toMatchObject({
      tenantId: TENANT,
      metric: 'cpu_usage',
      aggregation: 'p95',
      start: new Date('2026-01-01T00:00:00Z'),
      end: new Date('2026-01-02T00:00:00Z'),
      ciFilters: { environment: ['prod'] },
    });
    expect(extra).toEqual({ order: 'asc', limit: 3 });
  });

  it('with no item filter, aggregates over every item reporting the metric', async () => {
    const fake = new FakeMetrics(null, [item('a', 10)]);
    await run(fake, { time_range: { relative: 'last_7d' } });
    expect(fake.scopes[0].scope.ciFilters).toBeUndefined();
  });

  it('gives each top item its own series, restricted to the items returned, values rounded to 3 places', async () => {
    const bucket = new Date('2026-01-01T00:00:00Z');
    const fake = new FakeMetrics(
      null,
      [item('a', 90), item('b', 80)],
      [
        { ci_id: 'a', bucket, value: 1.23456 },
        { ci_id: 'b', bucket, value: 2 },
      ],
    );
    const result = await run(fake, { time_range: { relative: 'last_7d' }, bucket: '1d' });
    const series = fake.scopes.find((s) => s.call === 'series')!;
    expect(series.scope.ciFilters).toEqual({ ids: ['a', 'b'] });
    expect(series.extra).toEqual({ bucketSeconds: 86_400, perItem: true });
    const groups = (result.data as { groups: Array<{ ci_id: string; series: unknown }> }).groups;
    expect(groups.map((g) => [g.ci_id, g.series])).toEqual([
      ['a', [{ ts: '2026-01-01T00:00:00.000Z', value: 1.235 }]],
      ['b', [{ ts: '2026-01-01T00:00:00.000Z', value: 2 }]],
    ]);
  });

  it('group_by none gives one overall group, and says so when the window has no samples', async () => {
    const empty = new FakeMetrics(null, []);
    const result = await run(empty, { group_by: 'none', time_range: { relative: 'last_7d' } });
    expect(result.data).toMatchObject({
      count: 1,
      unit: 'percent',
      groups: [{ ci_id: null, value: null, sample_count: 0 }],
    });
    expect(result.warnings).toEqual(['No cpu_usage samples in the window for the selected items.']);
  });
});
