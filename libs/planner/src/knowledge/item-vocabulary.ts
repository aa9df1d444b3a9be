import type { MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { schemaProperties } from '../plan/schema-introspection.util';
import type { CatalogIndex } from './catalog-index';
import { normalizeText } from './text-match.util';

/**
 * What the tenant's knowledge says about the items its tools look up, read from the tools' schemas and the
 * catalog rather than from any domain's words: the table an item lookup filters (its rows are "the items"),
 * that table's filter columns (enum columns), the one among them that names an item's type, and the nouns
 * users call the items by (the type column's values and mapped keywords, and the table's aliases).
 */
export interface ItemVocabulary {
  /** The catalog table the item lookup filters, or null when no tool looks items up. */
  table: string | null;
  /** Enum columns of that table (the values a question describes items by). */
  filterColumns: Set<string>;
  /** The filter column that names an item's type (`<x>_type`, `type`, `kind`, `category`), if any. */
  typeColumn: string | null;
  /** Words for items (normalised): a word starting with one of them names items. */
  nouns: string[];
  /** Every enum value of the catalog (normalised): vocabulary, never a topic. */
  enumValues: Set<string>;
}

const TYPE_COLUMN = /(?:^|_)(?:type|kind|category|class)$/;

/** A tool that finds items by keywords and catalog filters, without a time window, a scope or a measure. */
export function isItemLookup(tool: ToolDefinition): boolean {
  const properties = schemaProperties(tool.input_schema);
  return (
    properties.some((p) => p.name === 'keywords') &&
    properties.some((p) => p.catalogTable) &&
    !properties.some(
      (p) => ['time_range', 'scope'].includes(p.name) || (p.catalogColumn !== null && p.required),
    )
  );
}

/** A tool that measures a value named by a required catalog column (a metric-like tool). */
export function measuresValue(tool: ToolDefinition): boolean {
  return schemaProperties(tool.input_schema).some(
    (p) => p.catalogColumn !== null && p.required && p.type === 'string',
  );
}

const CACHE = new WeakMap<object, WeakMap<object, Map<string | null, ItemVocabulary>>>();
const NO_MAPPINGS = {};
const NO_CATALOG = {};

export function itemVocabulary(
  tools: ToolDefinition[],
  catalog: CatalogIndex,
  mappings: MappingContent | null,
): ItemVocabulary {
  const lookup = tools.find(isItemLookup);
  const table = lookup
    ? (schemaProperties(lookup.input_schema).find((p) => p.catalogTable)?.catalogTable ?? null)
    : null;
  // Per mapping content, catalog content and item table (the same objects for every part of one plan and
  // for every example of one training): no serialising on the hot path.
  const byCatalog =
    CACHE.get(mappings ?? NO_MAPPINGS) ?? new WeakMap<object, Map<string | null, ItemVocabulary>>();
  CACHE.set(mappings ?? NO_MAPPINGS, byCatalog);
  const holder = byCatalog.get(catalog.content ?? NO_CATALOG) ?? new Map<string | null, ItemVocabulary>();
  byCatalog.set(catalog.content ?? NO_CATALOG, holder);
  const cacheKey = table;
  const cached = holder.get(cacheKey);
  if (cached) return cached;

  const tableInfo = table ? catalog.table(table) : undefined;
  const filterColumns = new Set(
    (tableInfo?.columns ?? []).filter((c) => c.enum_values?.length).map((c) => c.name),
  );
  // Without a catalog, the enum filters of the lookup's own filter schema.
  if (!filterColumns.size && lookup)
    for (const property of schemaProperties(lookup.input_schema))
      if (property.catalogTable)
        for (const inner of schemaProperties(property.schema))
          if (inner.enumValues || (inner.schema.items as { enum?: unknown } | undefined)?.enum)
            filterColumns.add(inner.name);
  const typeColumn = [...filterColumns].find((c) => TYPE_COLUMN.test(c)) ?? null;
  const nouns = new Set<string>();
  const add = (word: string) => {
    const normalized = normalizeText(word).trim();
    if (normalized.length >= 2) nouns.add(normalized);
  };
  for (const alias of tableInfo?.aliases ?? []) add(alias);
  if (typeColumn) {
    for (const value of tableInfo?.columns.find((c) => c.name === typeColumn)?.enum_values ?? []) add(value);
    for (const mapping of mappings?.mappings ?? [])
      if (mapping.kind === 'filter' && mapping.field === typeColumn && !mapping.keyword.includes(' '))
        add(mapping.keyword);
  }
  const enumValues = new Set(catalog.allEnumValues().map((hit) => normalizeText(hit.value)));
  const vocabulary: ItemVocabulary = {
    table,
    filterColumns,
    typeColumn,
    nouns: [...nouns].sort((a, b) => b.length - a.length),
    enumValues,
  };
  holder.set(cacheKey, vocabulary);
  return vocabulary;
}

/** Whether a word of a question names items ("payment rooms": the second word). */
export function namesItems(vocabulary: ItemVocabulary, word: string): boolean {
  return vocabulary.nouns.some((noun) => word.startsWith(noun));
}
