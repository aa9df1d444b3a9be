import { INTERNAL_SOURCE_REF } from '@app/asset-registry';
import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { HistoryEventRepository } from '../data/history-event.repository';
import { EVENT_KINDS, EVENT_SEVERITIES } from '../data/ops-vocabulary';
import { resolveTimeRange, TIME_RANGE_SCHEMA, TimeRangeInput } from '../data/time-range.util';
import { CI_FILTER_SCHEMA, CI_IDS_SCHEMA, CiFilterInput, toCiFilters } from './ci-filter.schema';

interface HistoryQueryInput {
  time_range: TimeRangeInput;
  kinds?: string[];
  severities?: string[];
  keywords?: string[];
  ci_ids?: string[];
  ci_filter?: CiFilterInput;
  order: 'asc' | 'desc';
  limit: number;
}

export const HISTORY_QUERY_TOOL: ToolDefinition = {
  name: 'history_query',
  kind: 'history_query',
  description:
    'List what happened to items in a time window (이력 조회): changes (변경), incidents (장애), deployments (배포), ' +
    'maintenance (점검) and alerts (알림), newest first. Filter by kind, severity, words in the title/details, the items ' +
    '(ci_ids from an earlier step, or ci_filter on their fields).',
  input_schema: {
    type: 'object',
    properties: {
      time_range: { ...TIME_RANGE_SCHEMA, default: { relative: 'last_7d' } },
      kinds: {
        type: 'array',
        items: { type: 'string', enum: [...EVENT_KINDS] },
        'x-catalog-column': 'history_events.kind',
        description: 'Event kinds (any of).',
      },
      severities: {
        type: 'array',
        items: { type: 'string', enum: [...EVENT_SEVERITIES] },
        'x-catalog-column': 'history_events.severity',
        description: 'Severities (any of).',
      },
      keywords: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: 'Words that must all appear in title or details.',
      },
      ci_ids: CI_IDS_SCHEMA,
      ci_filter: CI_FILTER_SCHEMA,
      order: { type: 'string', enum: ['desc', 'asc'], default: 'desc', description: 'desc: newest first.' },
      limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    },
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      events: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            occurred_at: { type: 'string' },
            kind: { type: 'string' },
            severity: { type: 'string' },
            title: { type: 'string' },
            ci_id: { type: ['string', 'null'] },
            ci_name: { type: ['string', 'null'] },
          },
          required: ['id', 'occurred_at', 'kind', 'severity', 'title'],
        },
      },
      count: { type: 'integer' },
      total: { type: 'integer' },
      time_range: { type: 'object' },
    },
    required: ['events', 'count', 'total'],
  },
  has_side_effects: false,
  timeout_ms: 10_000,
  source: 'builtin',
  source_ref: INTERNAL_SOURCE_REF,
  tags: ['ops', 'history'],
  planning_hints: {
    intent: 'query_history',
    examples: {
      ko: ['어제 장애 이력 보여줘', '이번 주 prod 배포 내역', 'prod-payment-api 최근 변경 이력'],
      en: ['incidents yesterday', 'deployments to prod this week', 'recent changes on prod-payment-api'],
    },
    keywords: { ko: ['이력', '내역', '히스토리'], en: ['history', 'timeline', 'what happened'] },
  },
};

@BuiltinTool()
export class HistoryQueryTool implements Tool {
  readonly definition = HISTORY_QUERY_TOOL;

  constructor(private readonly history: HistoryEventRepository) {}

  async execute(context: ToolContext, raw: Record<string, unknown>): Promise<ToolOutput> {
    const input = raw as unknown as HistoryQueryInput;
    const { start, end } = resolveTimeRange(input.time_range, new Date(), 'last_7d');
    const { events, total } = await this.history.search({
      tenantId: context.tenantId,
      start,
      end,
      kinds: input.kinds,
      severities: input.severities,
      keywords: input.keywords,
      ciFilters: input.ci_ids || input.ci_filter ? toCiFilters(input.ci_filter, input.ci_ids) : undefined,
      order: input.order,
      limit: input.limit,
    });
    return {
      data: {
        events,
        count: events.length,
        total,
        time_range: { start: start.toISOString(), end: end.toISOString() },
      },
    };
  }
}
