import { OPS_KEYWORD_MAPPINGS } from '../data/ops-catalog';
import { CiFilters } from '../data/configuration-item.repository';
import { CI_ENVIRONMENTS, CI_STATUSES, CI_TYPES } from '../data/ops-vocabulary';

const oneOrMany = (values: readonly string[], description: string) => ({
  description: `${description} One value or a list (any of).`,
  anyOf: [
    { type: 'string', enum: [...values] },
    { type: 'array', items: { type: 'string', enum: [...values] }, uniqueItems: true },
  ],
});

const stringOrList = (description: string) => ({
  description: `${description} One value or a list (any of).`,
  anyOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: 'string', minLength: 1 } },
  ],
});

export const CI_FILTER_SCHEMA = {
  type: 'object',
  description: 'Filters on configuration item fields (see the catalog table configuration_items).',
  'x-catalog-table': 'configuration_items',
  properties: {
    ci_type: oneOrMany(CI_TYPES, 'Item type.'),
    environment: oneOrMany(CI_ENVIRONMENTS, 'Environment: prod (운영), staging, dev (개발).'),
    status: oneOrMany(CI_STATUSES, 'Operational status.'),
    owner: stringOrList('Owning team, exact match.'),
    names: { ...stringOrList('Exact item names.'), 'x-catalog-column': 'configuration_items.name' },
    tags: {
      type: 'array',
      items: { type: 'string' },
      description: 'Items must carry every one of these tags.',
    },
    attributes: {
      type: 'object',
      description: 'JSON containment on attributes, e.g. {"region": "ap-northeast-2"}.',
    },
  },
  additionalProperties: false,
} as const;

export const CI_IDS_SCHEMA = {
  type: 'array',
  items: { type: 'string', format: 'uuid' },
  maxItems: 5000,
  description:
    'Only these item ids (e.g. from an earlier ci_lookup step: {"$ref": "step1.data.items[*].id"}). An empty list matches nothing.',
} as const;

export interface CiFilterInput {
  ci_type?: string | string[];
  environment?: string | string[];
  status?: string | string[];
  owner?: string | string[];
  names?: string | string[];
  tags?: string[];
  attributes?: Record<string, unknown>;
}

const list = (value: string | string[] | undefined): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

export function toCiFilters(input: CiFilterInput | undefined, ids?: string[]): CiFilters {
  return {
    ids,
    ci_type: list(input?.ci_type),
    environment: list(input?.environment),
    status: list(input?.status),
    owner: list(input?.owner),
    names: list(input?.names),
    tags: input?.tags,
    attributes: input?.attributes,
  };
}

const FILTER_FIELDS = new Set(['ci_type', 'environment', 'status']);
const KEYWORD_FILTERS = new Map(
  OPS_KEYWORD_MAPPINGS.mappings
    .filter((m) => m.kind === 'filter' && m.field && FILTER_FIELDS.has(m.field))
    .map((m) => [
      m.keyword.toLowerCase(),
      { field: m.field as 'ci_type' | 'environment' | 'status', value: m.value },
    ]),
);

/**
 * Keywords that name a type, environment or status ("서버", "운영", "prod") become filters, so
 * "prod servers" finds items whose fields say so rather than items with those words in their name.
 */
export function keywordsToFilters(
  keywords: string[],
  filters: CiFilters,
): { keywords: string[]; filters: CiFilters; applied: string[] } {
  const next: CiFilters = { ...filters };
  const remaining: string[] = [];
  const applied: string[] = [];
  for (const keyword of keywords) {
    const mapped = KEYWORD_FILTERS.get(keyword.trim().toLowerCase());
    if (!mapped) {
      if (keyword.trim()) remaining.push(keyword.trim());
      continue;
    }
    const current = next[mapped.field];
    if (!current?.length) next[mapped.field] = [mapped.value];
    else if (!current.includes(mapped.value)) {
      remaining.push(keyword.trim());
      continue;
    }
    applied.push(`${keyword} -> ${mapped.field}=${mapped.value}`);
  }
  return { keywords: remaining, filters: next, applied };
}
