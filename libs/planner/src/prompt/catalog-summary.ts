import type { CatalogColumn, CatalogContent, CatalogTable } from '@app/asset-registry';
import { estimateTokens } from '../knowledge/text-match.util';

/** Enumerated values shown per column; the rest are counted ("+N more"). */
export const SUMMARY_MAX_ENUM_VALUES = 20;
/** Enumerated values per column in the compact form of a table. */
export const COMPACT_MAX_ENUM_VALUES = 8;

export interface CatalogSummaryOptions {
  /** Token budget for the whole summary (estimateTokens). */
  maxTokens: number;
  /** Tables in this order first (most relevant first); the others follow in catalog order. */
  order?: string[];
  maxEnumValues?: number;
}

export interface CatalogSummary {
  text: string;
  /** Tables shown, in the order shown. */
  tables: string[];
  /** Of those, the ones shown in the compact form (name, key and enumerated columns only). */
  compact: string[];
  omitted: string[];
  estimated_tokens: number;
}

function values(column: CatalogColumn, max: number): string {
  const list = column.enum_values ?? [];
  if (!list.length) return '';
  const shown = list.slice(0, max).join('|');
  return ` values: ${shown}${list.length > max ? `|…(+${list.length - max} more)` : ''}`;
}

/** Every column with its type, values and description. */
export function renderTable(table: CatalogTable, maxEnumValues = SUMMARY_MAX_ENUM_VALUES): string {
  const columns = table.columns.map((column) => {
    const description = column.description ? ` - ${column.description}` : '';
    return `  - ${column.name} (${column.type})${values(column, maxEnumValues)}${description}`;
  });
  return `table ${table.name}${table.description ? ` - ${table.description}` : ''}\n${columns.join('\n')}`;
}

const isKey = (table: CatalogTable, column: CatalogColumn) =>
  column.primary_key === true ||
  (table.primary_key ?? []).includes(column.name) ||
  (table.references ?? []).some((r) => r.columns.includes(column.name));

/**
 * The compact form: the table, its key columns (primary and foreign keys) and enumerated columns with
 * their first values, and the other column names on one line.
 */
export function renderTableCompact(table: CatalogTable): string {
  const lines = [`table ${table.name}`];
  const rest: string[] = [];
  for (const column of table.columns) {
    if (isKey(table, column)) lines.push(`  - ${column.name} (${column.type}) key`);
    else if (column.enum_values?.length)
      lines.push(`  - ${column.name} (${column.type})${values(column, COMPACT_MAX_ENUM_VALUES)}`);
    else rest.push(column.name);
  }
  if (rest.length) lines.push(`  other columns: ${rest.join(', ')}`);
  return lines.join('\n');
}

/**
 * A catalog within a token budget (seed 004 `summarize_catalog`): tables in relevance order, each in
 * full when it fits, else in the compact form, else left out; the names of the tables left out close the
 * summary as far as they fit. Deterministic: the same catalog, order and budget give the same text.
 */
export function summarizeCatalog(
  catalog: CatalogContent | null,
  options: CatalogSummaryOptions,
): CatalogSummary {
  const tables = catalog?.tables ?? [];
  const rank = new Map((options.order ?? []).map((name, i) => [name, i]));
  const ordered = tables
    .map((table, i) => ({ table, i }))
    .sort((a, b) => (rank.get(a.table.name) ?? Infinity) - (rank.get(b.table.name) ?? Infinity) || a.i - b.i)
    .map((entry) => entry.table);
  const parts: string[] = [];
  const shown: string[] = [];
  const compact: string[] = [];
  const omitted: string[] = [];
  // Room for the closing "not shown" line is kept once a table has to be left out.
  const closing = (names: string[]) =>
    names.length
      ? `(${names.length} more table${names.length > 1 ? 's' : ''} not shown: ${names.join(', ')})`
      : '';
  let used = 0;
  for (const table of ordered) {
    const full = renderTable(table, options.maxEnumValues);
    const fullCost = estimateTokens(full) + 1;
    if (used + fullCost <= options.maxTokens) {
      parts.push(full);
      shown.push(table.name);
      used += fullCost;
      continue;
    }
    const short = renderTableCompact(table);
    const shortCost = estimateTokens(short) + 1;
    if (used + shortCost <= options.maxTokens) {
      parts.push(short);
      shown.push(table.name);
      compact.push(table.name);
      used += shortCost;
      continue;
    }
    omitted.push(table.name);
  }
  if (omitted.length) {
    // As many names as fit, in order; the count always says how many were left out.
    let names = [...omitted];
    let line = closing(names);
    while (names.length && used + estimateTokens(line) + 1 > options.maxTokens) {
      names = names.slice(0, Math.floor(names.length / 2));
      line = names.length
        ? `(${omitted.length} more tables not shown: ${names.join(', ')}, …)`
        : `(${omitted.length} more tables not shown)`;
    }
    if (used + estimateTokens(line) + 1 <= options.maxTokens) {
      parts.push(line);
      used += estimateTokens(line) + 1;
    }
  }
  const text = parts.join('\n');
  return { text, tables: shown, compact, omitted, estimated_tokens: estimateTokens(text) };
}
