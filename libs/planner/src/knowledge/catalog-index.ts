import type { CatalogColumn, CatalogContent, CatalogTable } from '@app/asset-registry';

export interface CatalogValueHit {
  table: string;
  column: string;
  value: string;
}

/** Lookups over a catalog: tables by name, columns, enumerated values. */
export class CatalogIndex {
  private readonly tables = new Map<string, CatalogTable>();

  constructor(readonly content: CatalogContent | null) {
    for (const table of content?.tables ?? []) this.tables.set(table.name.toLowerCase(), table);
  }

  get isEmpty(): boolean {
    return this.tables.size === 0;
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

  allEnumValues(): CatalogValueHit[] {
    const hits: CatalogValueHit[] = [];
    for (const table of this.tables.values()) {
      for (const column of table.columns) {
        for (const value of column.enum_values ?? [])
          hits.push({ table: table.name, column: column.name, value });
      }
    }
    return hits;
  }
}
