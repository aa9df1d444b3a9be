import type { CatalogColumn, CatalogContent, CatalogTable } from '@app/asset-registry';
import { INTERNAL_SOURCE_REF } from '@app/asset-registry';

export interface CatalogValueHit {
  table: string;
  column: string;
  value: string;
  /** The source whose catalog lists the value (absent: known from a tool's own schema). */
  source?: string;
}

/** A tool as far as the catalogs are concerned: its name and the source it reads. */
export interface SourcedTool {
  name: string;
  source_ref?: string | null;
}

/**
 * Lookups over a catalog: tables by name, columns, enumerated values.
 *
 * An index built with `CatalogIndex.forSources` holds the catalog of every source the tools read
 * (docs/notes/sources.md): its own lookups and `content` cover all of them (the internal source's tables
 * first), `allEnumValues()` says which source each value comes from, and `forTool(name)` is the
 * catalog of the source that tool reads, which is what its parameters are planned and checked against.
 * A tool without a `source_ref` reads the internal source (the catalog `ops`), as before sources existed.
 */
export class CatalogIndex {
  private readonly tables = new Map<string, CatalogTable>();
  private readonly bySource = new Map<string, CatalogIndex>();
  private readonly toolSources = new Map<string, string>();

  constructor(
    readonly content: CatalogContent | null,
    /** The source this catalog describes. */
    readonly source: string = INTERNAL_SOURCE_REF,
  ) {
    for (const table of content?.tables ?? []) {
      const key = table.name.toLowerCase();
      if (!this.tables.has(key)) this.tables.set(key, table);
    }
  }

  /**
   * One index over the catalogs of several sources. `catalogs` maps a source to its catalog content
   * (null: none published); `tools` says which source each tool reads.
   */
  static forSources(
    catalogs: ReadonlyMap<string, CatalogContent | null>,
    tools: ReadonlyArray<SourcedTool>,
  ): CatalogIndex {
    const sources = [...catalogs.keys()].sort((a, b) =>
      a === INTERNAL_SOURCE_REF ? -1 : b === INTERNAL_SOURCE_REF ? 1 : a.localeCompare(b),
    );
    const internal = catalogs.get(INTERNAL_SOURCE_REF) ?? null;
    const others = sources.filter((s) => s !== INTERNAL_SOURCE_REF && catalogs.get(s));
    // Only the internal catalog: the index is exactly that catalog (same content object as before sources).
    const content: CatalogContent | null = others.length
      ? {
          source: internal?.source ?? { kind: 'internal' },
          tables: sources.flatMap((s) => catalogs.get(s)?.tables ?? []),
        }
      : internal;
    const index = new CatalogIndex(content);
    for (const source of sources)
      index.bySource.set(source, new CatalogIndex(catalogs.get(source) ?? null, source));
    for (const tool of tools) index.toolSources.set(tool.name, tool.source_ref || INTERNAL_SOURCE_REF);
    return index;
  }

  get isEmpty(): boolean {
    return this.tables.size === 0;
  }

  /** The source a tool reads (`internal` when it declares none). */
  sourceOf(toolName: string): string {
    return this.toolSources.get(toolName) ?? INTERNAL_SOURCE_REF;
  }

  /** The catalog of the source a tool reads; this index itself when it was built for one catalog. */
  forTool(toolName: string): CatalogIndex {
    if (!this.bySource.size) return this;
    const source = this.sourceOf(toolName);
    return this.bySource.get(source) ?? new CatalogIndex(null, source);
  }

  /** The catalog of one source (an empty index when none is published for it). */
  forSource(source: string): CatalogIndex {
    if (!this.bySource.size) return source === this.source ? this : new CatalogIndex(null, source);
    return this.bySource.get(source) ?? new CatalogIndex(null, source);
  }

  table(name: string): CatalogTable | undefined {
    return this.tables.get(name.toLowerCase());
  }

  column(table: string, column: string): CatalogColumn | undefined {
    return this.table(table)?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
  }

  /** `table.column` -> the column, or undefined. */
  columnRef(ref: string): CatalogColumn | undefined {
    const [table, column] = ref.split('.');
    return table && column ? this.column(table, column) : undefined;
  }

  /** Every table having a column of that name. */
  tablesWithColumn(column: string): CatalogTable[] {
    return [...this.tables.values()].filter((t) =>
      t.columns.some((c) => c.name.toLowerCase() === column.toLowerCase()),
    );
  }

  enumValues(table: string, column: string): string[] | null {
    const values = this.column(table, column)?.enum_values;
    return values?.length ? values : null;
  }

  /** Every enumerated value, each with the source whose catalog lists it. */
  allEnumValues(): CatalogValueHit[] {
    if (this.bySource.size) return [...this.bySource.values()].flatMap((index) => index.allEnumValues());
    const hits: CatalogValueHit[] = [];
    for (const table of this.content?.tables ?? []) {
      for (const column of table.columns) {
        for (const value of column.enum_values ?? [])
          hits.push({ table: table.name, column: column.name, value, source: this.source });
      }
    }
    return hits;
  }
}
