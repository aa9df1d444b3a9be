import type { CatalogContent, CatalogTable } from '@app/asset-registry';
import { OPS_CATALOG } from '@app/ops';
import { estimateTokens } from '../knowledge/text-match.util';
import { renderTable, renderTableCompact, summarizeCatalog } from './catalog-summary';

function table(i: number, values = 3): CatalogTable {
  return {
    name: `table_${String(i).padStart(3, '0')}`,
    description: `records of partition ${i}`,
    primary_key: ['id'],
    columns: [
      { name: 'id', type: 'uuid', primary_key: true },
      { name: 'owner_id', type: 'uuid', description: 'who owns the record' },
      { name: 'state', type: 'text', enum_values: Array.from({ length: values }, (_, v) => `state_${v}`) },
      {
        name: 'amount',
        type: 'numeric',
        description: 'amount in KRW before tax, rounded to the won, as invoiced at the end of the month',
      },
      { name: 'created_at', type: 'timestamptz' },
    ],
    references: [{ columns: ['owner_id'], table: 'owners', referenced_columns: ['id'] }],
  };
}

const catalog = (tables: CatalogTable[]): CatalogContent => ({
  source: { kind: 'source_asset', name: 'crm' },
  tables,
});

describe('summarizeCatalog', () => {
  const big = catalog(Array.from({ length: 200 }, (_, i) => table(i)));

  it.each([0, 10, 50, 120, 400, 1000, 3000])('stays within a budget of %i tokens', (maxTokens) => {
    const summary = summarizeCatalog(big, { maxTokens });
    expect(estimateTokens(summary.text)).toBeLessThanOrEqual(maxTokens);
    expect(summary.estimated_tokens).toBe(estimateTokens(summary.text));
    expect(summary.tables.length + summary.omitted.length).toBe(200);
  });

  it('shows everything in full when the budget allows', () => {
    const summary = summarizeCatalog(OPS_CATALOG, { maxTokens: 100_000 });
    expect(summary.tables).toEqual(OPS_CATALOG.tables.map((t) => t.name));
    expect(summary.compact).toEqual([]);
    expect(summary.omitted).toEqual([]);
    for (const t of OPS_CATALOG.tables) expect(summary.text).toContain(renderTable(t));
  });

  it('puts the relevant tables first, then compacts, then names the rest, deterministically', () => {
    const full = estimateTokens(renderTable(table(150))) + 1;
    const compact = estimateTokens(renderTableCompact(table(7))) + 1;
    expect(estimateTokens(renderTable(table(7))) + 1).toBeGreaterThan(compact + 12);
    const maxTokens = full + compact + 12;
    const options = { maxTokens, order: ['table_150', 'table_007'] };
    const summary = summarizeCatalog(big, options);
    expect(summary.tables.slice(0, 2)).toEqual(['table_150', 'table_007']);
    expect(summary.compact).toContain('table_007');
    expect(summary.compact).not.toContain('table_150');
    expect(summary.text.startsWith('table table_150 - records of partition 150')).toBe(true);
    expect(summary.text).toMatch(/\(\d+ more tables not shown/);
    expect(summarizeCatalog(big, options)).toEqual(summary);
  });

  it('the compact form keeps key and enumerated columns and names the others', () => {
    const text = renderTableCompact(table(1, 12));
    expect(text).toContain('  - id (uuid) key');
    expect(text).toContain('  - owner_id (uuid) key');
    expect(text).toContain('state_0|state_1|state_2|state_3|state_4|state_5|state_6|state_7|…(+4 more)');
    expect(text).toContain('  other columns: amount, created_at');
    expect(text).not.toContain('amount in KRW');
  });

  it('truncates long value lists and says how many were left out', () => {
    const text = renderTable(table(1, 30));
    expect(text).toContain('state_19|…(+10 more)');
    expect(text).not.toContain('state_20');
  });

  it('an absent catalog is an empty summary', () => {
    expect(summarizeCatalog(null, { maxTokens: 100 })).toMatchObject({ text: '', tables: [], omitted: [] });
  });
});
