import { Optional } from '@nestjs/common';
import { INTERNAL_SOURCE_REF, PublishedAssetReader } from '@app/asset-registry';
import { BuiltinTool, Tool, ToolContext, ToolDefinition, ToolOutput } from '@app/tools';
import { ConfigurationItemRepository } from '../data/configuration-item.repository';
import { CI_FILTER_SCHEMA, CiFilterInput, keywordsToFilters, toCiFilters } from './ci-filter.schema';
import { resolveKeywords } from './ci-resolver.util';

interface CiLookupInput {
  keywords: string[];
  filters?: CiFilterInput;
  ids?: string[];
  limit: number;
  offset: number;
}

const ITEM_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    ci_type: { type: 'string' },
    environment: { type: 'string' },
    status: { type: 'string' },
    owner: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    attributes: { type: 'object' },
    description: { type: ['string', 'null'] },
  },
  required: ['id', 'name', 'ci_type', 'environment', 'status'],
};

export const CI_LOOKUP_TOOL: ToolDefinition = {
  name: 'ci_lookup',
  kind: 'ci_lookup',
  description:
    'Find configuration items (CI 자산 조회: servers, services, databases, applications) by keywords and field filters. ' +
    'Keywords naming a type, environment or status ("server", "서버", "prod", "운영") are applied as filters; other keywords ' +
    'must each match the name, owner, tags or description. Returns the items (with ids to pass to metric_query, ' +
    'history_query or graph_analysis) and the total number of matches.',
  input_schema: {
    type: 'object',
    properties: {
      keywords: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        default: [],
        description: 'Search words; all must match (e.g. ["payment", "api"]).',
      },
      filters: CI_FILTER_SCHEMA,
      ids: {
        type: 'array',
        items: { type: 'string', format: 'uuid' },
        description: 'Only these item ids.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 500,
        default: 10,
        description: 'Maximum items returned.',
      },
      offset: { type: 'integer', minimum: 0, default: 0, description: 'Items to skip (paging).' },
    },
    additionalProperties: false,
  },
  output_schema: {
    type: 'object',
    properties: {
      items: { type: 'array', items: ITEM_SCHEMA },
      count: { type: 'integer', description: 'Items returned' },
      total: { type: 'integer', description: 'Items matching' },
    },
    required: ['items', 'count', 'total'],
  },
  has_side_effects: false,
  timeout_ms: 10_000,
  source: 'builtin',
  source_ref: INTERNAL_SOURCE_REF,
  tags: ['ops', 'ci'],
  planning_hints: {
    intent: 'lookup_ci',
    examples: {
      ko: [
        'prod 서버 목록 보여줘',
        '결제 서비스 담당팀 누구야?',
        '점검 중인 DB 몇 대야',
        'prod-payment-db 스펙 알려줘',
      ],
      en: [
        'list the prod servers',
        'who owns the payment service?',
        'how many databases are in maintenance',
        'specs of prod-payment-db',
      ],
    },
    keywords: { ko: ['담당팀', '스펙', '사양'], en: ['owner', 'specs'] },
  },
};

@BuiltinTool()
export class CiLookupTool implements Tool {
  readonly definition = CI_LOOKUP_TOOL;

  constructor(
    private readonly items: ConfigurationItemRepository,
    @Optional() private readonly assets?: PublishedAssetReader,
  ) {}

  async execute(context: ToolContext, raw: Record<string, unknown>): Promise<ToolOutput> {
    const input = raw as unknown as CiLookupInput;
    const resolvers =
      this.assets && input.keywords.length ? await this.assets.listPublishedResolvers(context.tenantId) : [];
    const resolution = resolveKeywords(
      resolvers.map((r) => ({ name: r.name, content: r.content })),
      input.keywords,
      toCiFilters(input.filters, input.ids),
    );
    const mapped = keywordsToFilters(resolution.keywords, resolution.filters);
    const { items, total } = await this.items.search({
      tenantId: context.tenantId,
      keywords: mapped.keywords,
      filters: mapped.filters,
      limit: input.limit,
      offset: input.offset,
    });
    return {
      data: { items, count: items.length, total },
      metadata: {
        keywords_as_filters: mapped.applied,
        text_keywords: mapped.keywords,
        ...(resolution.resolved.length ? { resolved: resolution.resolved } : {}),
      },
    };
  }
}
