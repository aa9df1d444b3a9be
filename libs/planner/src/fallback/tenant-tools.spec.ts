import { BUILTIN_TOOL_DEFINITIONS } from '@app/ops';
import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { FallbackPlanner } from './fallback-planner';
import { applyNotFor } from './not-for';
import { analyseQuestion } from './question-analysis';
import { trainingExamples } from './planning-classifier';

/**
 * A tenant that is not the OPS demo: an invented lending library, published as tools only (no catalog, no
 * mappings), served beside the built-in tools. What the planner knows about it is its schemas and hints.
 */
const NOW = new Date('2026-11-22T09:00:00Z');

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  extra: Partial<ToolDefinition> = {},
): ToolDefinition => ({
  name,
  description,
  kind: 'http',
  input_schema: { type: 'object', properties },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 1000,
  source: 'dynamic',
  version: 1,
  ...extra,
});

const LOAN_LOOKUP = tool('loan_lookup', 'Loans of the lending library: due dates, renewals, overdue fines.', {
  loan_no: { type: 'string', pattern: '^LN-\\d{6}$' },
  member_no: { type: 'string', pattern: '^M-\\d{5}$' },
});
const MEMBER_LOOKUP = tool('member_lookup', 'Library member card: name, address, card expiry.', {
  member_no: { type: 'string', pattern: '^M-\\d{5}$' },
  name: { type: 'string' },
});
const LIBRARY_TOOLS = [...BUILTIN_TOOL_DEFINITIONS, LOAN_LOOKUP, MEMBER_LOOKUP];
const catalog = new CatalogIndex(null);
const analysis = (query: string, tools = LIBRARY_TOOLS) => analyseQuestion(query, tools, catalog, null, NOW);
const chosen = (query: string, tools = LIBRARY_TOOLS) =>
  new FallbackPlanner(null, { trainSynchronously: true })
    .plan({ query, tools, catalog, mappings: null, now: NOW, maxLimit: 100 })
    .plan.steps.map((s) => s.tool_type);

describe('values shaped like a tool input', () => {
  it('reads a token matching an input pattern as that input, not as an item name', () => {
    const read = analysis('is LN-204511 overdue?');
    expect(read.identifiers).toEqual([]);
    expect(read.shaped).toEqual([{ value: 'ln-204511', tools: ['loan_lookup'] }]);
    // A shape several tools take names them all; a particle after it (Korean) is not part of the value.
    expect(analysis('M-12345의 카드 만료일').shaped).toEqual([
      { value: 'm-12345', tools: ['loan_lookup', 'member_lookup'] },
    ]);
    // A hyphenated name no tool input is shaped like stays an item name.
    expect(analysis('is checkout-api up?').identifiers).toEqual(['checkout-api']);
  });

  it('answers with a tool taking the value when no tool reached its bar', () => {
    const tools = chosen('pull up LN-204511 pls');
    expect(tools).toEqual(['loan_lookup']);
  });
});

describe('English compound words', () => {
  it('are words of the language, not item names', () => {
    for (const query of [
      'how many walk-ins and drop-offs today',
      'any no-shows after the pre-op check',
      'values that were out-of-range',
    ])
      expect({ query, items: analysis(query).identifiers }).toEqual({ query, items: [] });
    expect(analysis('did checkout-api fail after the check-in').identifiers).toEqual(['checkout-api']);
  });
});

describe("what a tool's owner says it is not for", () => {
  const lookup = tool(
    'loan_lookup',
    'Loans: due dates and fines.',
    {},
    {
      planning_hints: {
        examples: { en: ['when is loan LN-123456 due'] },
        not_for: { en: ['renewing a loan (use renew_loan)', 'waiving a fine'] },
      },
    },
  );
  const renew = tool('renew_loan', 'Extends a loan by two weeks.', {}, { has_side_effects: true });
  const tools = [lookup, renew];
  const names = (list: ToolDefinition[]) => list.map((t) => t.name);

  it('takes the tool out when the question says its not_for text more fully than its own examples', () => {
    expect(names(applyNotFor('please waive the fine on LN-123456', tools, [lookup]))).toEqual([]);
    expect(names(applyNotFor('when is LN-123456 due, any fines?', tools, [lookup]))).toEqual(['loan_lookup']);
  });

  it('chooses the tool a not_for text sends the question to', () => {
    expect(names(applyNotFor('renewing loan LN-123456 please', tools, [lookup]))).toEqual(['renew_loan']);
  });
});

describe('enum inputs of a tenant tool', () => {
  const report = tool(
    'loan_report',
    'Loan report: loans and returns per branch for a period.',
    {
      branch: { type: 'string', enum: ['all', 'central', 'riverside'], default: 'all' },
      period: {
        type: 'string',
        enum: ['today', 'yesterday', 'last_week', 'last_month'],
        default: 'yesterday',
      },
    },
    { planning_hints: { keywords: { en: ['loan report'], ko: ['대출 보고서'] } } },
  );
  const parameters = (query: string) =>
    new FallbackPlanner(null, { trainSynchronously: true }).plan({
      query,
      tools: [report],
      catalog,
      mappings: null,
      now: NOW,
      maxLimit: 100,
    }).plan.steps[0]?.parameters;

  it('takes a value the question names over the default, and a period in any language', () => {
    expect(parameters('loan report for riverside, last week')).toEqual({
      branch: 'riverside',
      period: 'last_week',
    });
    expect(parameters('지난달 대출 보고서')).toEqual({ period: 'last_month' });
  });
});

describe('the values a tool enumerates', () => {
  it('are learned as its vocabulary, like its description', () => {
    const fines = tool('fine_lookup', '연체료 조회', {
      reason: { type: 'string', enum: ['late_return', 'lost_item', 'damaged_item'] },
    });
    const { examples } = trainingExamples(
      { tools: [fines], catalog, mappings: null, examples: [], signalsOf: () => ({}) },
      {},
    );
    expect(examples).toContainEqual({
      text: 'late return lost item damaged item',
      tools: ['fine_lookup'],
      weight: 0.5,
    });
  });
});
