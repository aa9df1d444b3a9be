import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import {
  AGGREGATIONS,
  Aggregation,
  BuiltinTool,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolOutput,
} from '@app/tools';
import { MetricRepository, MetricScope } from '../data/metric.repository';
import { METRIC_NAMES, METRIC_STEPS, METRICS, MetricName } from '../data/ops-vocabulary';
import { resolveTimeRange, TIME_RANGE_SCHEMA, TimeRangeInput } from '../data/time-range.util';
import { CI_FILTER_SCHEMA, CI_IDS_SCHEMA, CiFilterInput, toCiFilters } from './ci-filter.schema';

const BUCKETS: Record<string, number> = {
  '5m': 300,
  '15m': 900,
  '30m': 1800,
  '1h': 3600,
  '6h': 21600,
  '12h': 43200,
  '1d': 86400,
};
const DAY_MS = 86_400_000;

interface MetricQueryInput {
  metric_name: MetricName;
  agg: Aggregation;
  time_range: TimeRangeInput;
  group_by: 'item' | 'none';
  top_n: number;
  order: 'asc' | 'desc';
  bucket?: string;
  resolution: 'auto' | '5m' | '1h';
  ci_ids?: string[];
  ci_filter?: CiFilterInput;
}

interface Group {
  ci_id: string | null;
  ci_name: string | null;
  ci_type: string | null;
  environment: string | null;
  value: number | null;
  sample_count: number;
  series?: Array<{ ts: string; value: number }>;
}

export const METRIC_QUERY_TOOL: ToolDefinition = {
  name: 'metric_query',
  kind: 'metric_query',
  description:
    'Aggregate a performance metric (메트릭 조회: CPU/메모리 사용률, 디스크 I/O, 네트워크, 요청 수, 에러율, 응답 시간) over a time window. ' +
    'Per item (group_by "item", default) it returns the top_n items ordered by the aggregate (e.g. the 5 prod servers with ' +
    'the highest average cpu_usage last week); group_by "none" gives one value over all items. With `bucket` each group ' +
    'also gets a time series. Narrow the items with ci_filter (environment, ci_type, ...) or ci_ids from an earlier step. ' +
    'Data: hourly samples for 30 days, 5-minute samples for the last 24 hours (chosen automatically).',
  input_schema: {
    type: 'object',
    properties: {
      metric_name: {
        type: 'string',
        enum: METRIC_NAMES,
        'x-catalog-column': 'metrics.metric_name',
        description: `Metric: ${METRIC_NAMES.map((m) => `${m} (${METRICS[m].unit}, ${METRICS[m].ci_types.join('/')})`).join('; ')}`,
      },
      agg: {
        type: 'string',
        enum: [...AGGREGATIONS],
        default: 'avg',
        description: 'Aggregation per group.',
      },
      time_range: { ...TIME_RANGE_SCHEMA, default: { relative: 'last_24h' } },
      group_by: {
        type: 'string',
        enum: ['item', 'none'],
        default: 'item',
        description: 'One value per item, or one overall.',
      },
      top_n: {
        type: 'integer',
        minimum: 1,
        maximum: 500,
        default: 10,
        description: 'How many items to return.',
      },
      order: {
        type: 'string',
        enum: ['desc', 'asc'],
        default: 'desc',
        description: 'desc: highest first (top), asc: lowest first.',
      },
      bucket: {
        type: 'string',
        enum: Object.keys(BUCKETS),
        description: 'Also return a series with this bucket width.',
      },
      resolution: {
        type: 'string',
        enum: ['auto', '5m', '1h'],
        default: 'auto',
        description:
          'Samples to read; auto uses 5-minute samples when they cover the window and it is at most a day (or the bucket is under 1h).',
      },
      ci_ids: CI_IDS_SCHEMA,
      ci_filter: CI_FILTER_SCHEMA,
    },
    required: ['metric_name'],
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      metric_name: { type: 'string' },
      unit: { type: 'string' },
      agg: { type: 'string' },
      time_range: { type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' } } },
      resolution_seconds: { type: 'integer' },
      groups: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            ci_id: { type: ['string', 'null'] },
            ci_name: { type: ['string', 'null'] },
            value: { type: ['number', 'null'] },
            sample_count: { type: 'integer' },
            series: { type: 'array' },
          },
          required: ['ci_id', 'value', 'sample_count'],
        },
      },
      count: { type: 'integer' },
    },
    required: ['metric_name', 'agg', 'time_range', 'groups', 'count'],
  },
  has_side_effects: false,
  timeout_ms: 20_000,
  source: 'builtin',
  source_ref: INTERNAL_SOURCE_REF,
  tags: ['ops', 'metrics'],
  planning_hints: {
    intent: 'query_metrics',
    examples: {
      ko: [
        '지난주 prod 서버 CPU 사용률 top 5',
        'prod-order-api 에러율 추이 어제 기준',
        'DB 커넥션 제일 많은 데이터베이스',
      ],
      en: [
        'top 5 prod servers by cpu usage last week',
        'error rate trend of prod-order-api yesterday',
        'which database has the most connections',
      ],
    },
    keywords: { ko: ['사용률', '추이', '메트릭'], en: ['usage', 'trend', 'metrics'] },
  },
};

@BuiltinTool()
export class MetricQueryTool implements Tool {
  readonly definition = METRIC_QUERY_TOOL;

  constructor(private readonly metrics: MetricRepository) {}

  async execute(context: ToolContext, raw: Record<string, unknown>): Promise<ToolOutput> {
    const input = raw as unknown as MetricQueryInput;
    const { start, end } = resolveTimeRange(input.time_range, new Date());
    const warnings: string[] = [];
    const bucketSeconds = input.bucket ? BUCKETS[input.bucket] : undefined;
    const stepSeconds = await this.chooseStep(context.tenantId, input, start, end, bucketSeconds, warnings);
    const scope: MetricScope = {
      tenantId: context.tenantId,
      metric: input.metric_name,
      stepSeconds,
      start,
      end,
      aggregation: input.agg,
      ciFilters: input.ci_ids || input.ci_filter ? toCiFilters(input.ci_filter, input.ci_ids) : undefined,
    };

    let groups: Group[];
    if (input.group_by === 'none') {
      const overall = await this.metrics.overall(scope);
      groups = [{ ci_id: null, ci_name: null, ci_type: null, environment: null, ...overall }];
      if (bucketSeconds) groups[0].series = toSeries(await this.metrics.series(scope, bucketSeconds, false));
    } else {
      groups = await this.metrics.perItem(scope, input.order, input.top_n);
      if (bucketSeconds && groups.length) {
        const ids = groups.map((g) => g.ci_id as string);
        const points = await this.metrics.series({ ...scope, ciFilters: { ids } }, bucketSeconds, true);
        for (const group of groups) group.series = toSeries(points.filter((p) => p.ci_id === group.ci_id));
      }
    }
    if (!groups.length || groups.every((g) => g.sample_count === 0))
      warnings.push(`No ${input.metric_name} samples in the window for the selected items.`);
    return {
      data: {
        metric_name: input.metric_name,
        unit: METRICS[input.metric_name].unit,
        agg: input.agg,
        time_range: { start: start.toISOString(), end: end.toISOString() },
        resolution_seconds: stepSeconds,
        group_by: input.group_by,
        groups,
        count: groups.length,
      },
      warnings,
    };
  }

  private async chooseStep(
    tenantId: string,
    input: MetricQueryInput,
    start: Date,
    end: Date,
    bucketSeconds: number | undefined,
    warnings: string[],
  ): Promise<number> {
    if (input.resolution === '1h') return METRIC_STEPS.hourly;
    const fineStart = await this.metrics.fineWindowStart(tenantId, input.metric_name, METRIC_STEPS.fine);
    const covered = fineStart !== null && start >= fineStart;
    if (input.resolution === '5m') {
      if (!covered)
        warnings.push(
          `5-minute samples start at ${fineStart?.toISOString() ?? 'never'}; earlier parts of the window have no data.`,
        );
      return METRIC_STEPS.fine;
    }
    const wantsFine =
      (bucketSeconds !== undefined && bucketSeconds < 3600) || end.getTime() - start.getTime() <= DAY_MS;
    if (wantsFine && covered) return METRIC_STEPS.fine;
    if (bucketSeconds !== undefined && bucketSeconds < 3600)
      warnings.push('5-minute samples do not cover the window; the series uses hourly samples.');
    return METRIC_STEPS.hourly;
  }
}

function toSeries(points: Array<{ bucket: Date; value: number }>): Array<{ ts: string; value: number }> {
  return points.map((p) => ({ ts: p.bucket.toISOString(), value: Math.round(p.value * 1000) / 1000 }));
}
