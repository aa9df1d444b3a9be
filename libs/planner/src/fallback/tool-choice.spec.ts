import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { analyseQuestion } from './question-analysis';
import { chooseTools } from './tool-choice';

/** Invented tools: one a classifier might pick from wording, one whose own enum the question names. */
const tool = (name: string, description: string, properties: Record<string, unknown>): ToolDefinition =>
  ({
    name,
    description,
    input_schema: { type: 'object', properties },
    output_schema: null,
    has_side_effects: false,
  }) as unknown as ToolDefinition;

const WORDY = tool('text_search', 'Full-text search over the wiki pages.', { query: { type: 'string' } });
const FORMATS = tool('title_lookup', 'Titles held by the lending library.', {
  format: { type: 'string', enum: ['hardcover', 'paperback', 'audiobook'] },
});
const TOOLS = [WORDY, FORMATS];
const NOW = new Date('2026-11-22T09:00:00Z');

function choose(query: string, scores: Record<string, number>, slots: Record<string, number>): string[] {
  const analysis = analyseQuestion(query, TOOLS, new CatalogIndex(null), null, NOW);
  for (const [name, count] of Object.entries(slots)) analysis.features[`slot:${name}`] = count;
  return chooseTools({
    tools: TOOLS,
    analysis,
    scores,
    clauses: [query],
    aggregation: null,
    lookup: undefined,
    documentTool: undefined,
    documentLed: false,
    documentClause: false,
    options: {},
    learned: true,
  }).map((t) => t.name);
}

describe('chooseTools', () => {
  it('gives a tool chosen on wording alone up for the tool whose own input takes a value the question names', () => {
    expect(
      choose('any audiobook copies left?', { text_search: 0.9, title_lookup: 0.25 }, { title_lookup: 1 }),
    ).toEqual(['title_lookup']);
  });

  it('keeps the wording choice when no tool takes a value the question names', () => {
    expect(choose('any copies left?', { text_search: 0.9, title_lookup: 0.1 }, {})).toEqual(['text_search']);
  });
});
