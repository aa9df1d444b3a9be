import type { CatalogTable } from '@app/asset-registry';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { FallbackPlanner } from '../fallback/fallback-planner';
import { CatalogIndex } from '../knowledge/catalog-index';
import { estimateTokens } from '../knowledge/text-match.util';
import { PromptBuilder } from './prompt-builder';

const OPS_TOOL_DEFINITIONS = [...BUILTIN_TOOL_DEFINITIONS];
const OPS_MAPPINGS = OPS_KEYWORD_MAPPINGS;

const NOW = new Date('2026-11-22T09:00:00Z');
const DOMAINS = [
  'billing',
  'invoice',
  'customer',
  'order',
  'shipment',
  'payroll',
  'ledger',
  'campaign',
  'ticket',
  'audit',
];

function noiseTable(i: number): CatalogTable {
  const domain = DOMAINS[i % DOMAINS.length];
  return {
    name: `${domain}_${String(i).padStart(3, '0')}`,
    description: `${domain} records, partition ${i}`,
    columns: [
      { name: 'id', type: 'uuid', primary_key: true },
      { name: `${domain}_code`, type: 'text', description: `${domain} code` },
      { name: 'state', type: 'text', enum_values: ['open', 'closed', 'pending'] },
      { name: 'amount', type: 'numeric' },
      { name: 'created_at', type: 'timestamptz' },
      { name: 'updated_by', type: 'text', description: 'last editor' },
    ],
  };
}

function build(
  query: string,
  tables: CatalogTable[],
  tokenBudget: number,
  systemPrompt: string | null = null,
) {
  const catalog = new CatalogIndex({ source: { kind: 'internal' }, tables });
  const { scores } = new FallbackPlanner(null, { trainSynchronously: true }).plan({
    query,
    tools: OPS_TOOL_DEFINITIONS,
    catalog,
    mappings: OPS_MAPPINGS,
    now: NOW,
    maxLimit: 100,
  });
  return new PromptBuilder().build({
    query,
    tools: OPS_TOOL_DEFINITIONS,
    catalog,
    mappings: OPS_MAPPINGS,
    systemPrompt,
    tokenBudget,
    now: NOW,
    toolScores: scores,
  });
}

describe('PromptBuilder', () => {
  it('includes tools with schemas, the catalog and the mappings when they fit', () => {
    const { messages, report } = build('지난 주 prod 서버 CPU top 5', OPS_CATALOG.tables, 20_000);
    const user = messages[1].content as string;
    expect(messages[0].content).toContain('query planner for the tools listed below');
    for (const tool of OPS_TOOL_DEFINITIONS) expect(user).toContain(`schema ${tool.name}:`);
    expect(user).toContain('environment (varchar) values: prod|staging|dev');
    expect(user).toContain('"CPU 사용률" -> metric = cpu_usage');
    expect(report).toMatchObject({ omitted_tables: [], omitted_tool_schemas: [], omitted_mappings: 0 });
  });

  it('uses the published system prompt instead of the default', () => {
    const { messages } = build('cpu', OPS_CATALOG.tables, 20_000, 'You plan for ACME ops.');
    expect(messages[0].content).toBe('You plan for ACME ops.');
  });

  it('with a 500-table catalog stays within the budget and keeps the tables the question needs', () => {
    const tables = [
      ...Array.from({ length: 250 }, (_, i) => noiseTable(i)),
      ...OPS_CATALOG.tables,
      ...Array.from({ length: 246 }, (_, i) => noiseTable(250 + i)),
    ];
    expect(tables).toHaveLength(500);
    const budget = 4000;
    const { messages, report } = build(
      '지난 주 prod 환경의 서버들 중 CPU 사용률이 높은 top 5개를 보여줘',
      tables,
      budget,
    );
    const tokens = messages.reduce((sum, m) => sum + estimateTokens(m.content ?? ''), 0);
    expect(tokens).toBeLessThanOrEqual(budget);
    expect(report.estimated_tokens).toBeLessThanOrEqual(budget);
    expect(report.included_tables.slice(0, 2).sort()).toEqual(['configuration_items', 'metrics']);
    expect(report.omitted_tables.length).toBeGreaterThan(400);
    expect(report.omitted_tables).not.toContain('ci');
    expect(report.omitted_tool_schemas).not.toContain('metric_query');
    expect(messages[1].content).toContain(
      'metric_name (varchar) values: cpu_usage|memory_usage|disk_io_read|disk_io_write',
    );
  });

  it('keeps the history table for a history question', () => {
    const tables = [...Array.from({ length: 300 }, (_, i) => noiseTable(i)), ...OPS_CATALOG.tables];
    const { report } = build('db-01의 지난 주 배포 이력', tables, 3000);
    expect(report.included_tables).toContain('history_events');
  });
});
