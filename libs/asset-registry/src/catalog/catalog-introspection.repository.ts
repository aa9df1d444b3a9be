import { Injectable } from '@nestjs/common';
import type { CatalogColumn, CatalogTable } from '../asset-contents';

/** Runs one parameterised statement on the database being described. */
export type SqlRunner = <T = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<T[]>;

export interface IntrospectionOptions {
  schema: string;
  /** Only these tables (all when absent). */
  tables?: string[];
  excludeTables: string[];
  /** Tables described (structure only) but never read: no values are sampled from them. */
  unsampledTables?: string[];
  /** Text columns with at most this many distinct values get `enum_values`; 0 turns sampling off. */
  enumMaxDistinct: number;
  /** Rows read per column when looking for enumerated values (bounds the cost on large tables). */
  enumSampleRows: number;
}

interface TableRow {
  oid: string;
  name: string;
  kind: string;
  description: string | null;
}

interface ColumnRow {
  table_oid: string;
  name: string;
  type: string;
  nullable: boolean;
  description: string | null;
  typtype: string;
  category: string;
  type_oid: string;
}

interface ConstraintRow {
  table_oid: string;
  kind: 'p' | 'f' | 'c';
  columns: string[];
  referenced_table: string | null;
  referenced_schema: string | null;
  referenced_columns: string[] | null;
  definition: string;
}

const RELKINDS = `('r', 'p', 'v', 'm', 'f')`;
const SAMPLED_RELKINDS = new Set(['r', 'p', 'm']);
const MAX_ENUM_VALUE_LENGTH = 64;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Values a single-column CHECK constraint allows (`col IN ('a', 'b')` is stored as `= ANY (ARRAY[...])`). */
export function checkConstraintValues(definition: string): string[] | null {
  const array = /=\s*ANY\s*\(+\s*ARRAY\[(.*)\]/s.exec(definition);
  if (!array) return null;
  const values = [...array[1].matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'"));
  return values.length > 0 ? values : null;
}

/** Reads tables, columns, types, keys, comments and enumerated values from PostgreSQL's catalogs. */
@Injectable()
export class CatalogIntrospectionRepository {
  /** Tables of a schema that hold per-tenant rows (a `tenant_id` column): the service's own tenant data. */
  async tenantOwnedTables(run: SqlRunner, schema: string): Promise<string[]> {
    const rows = await run<{ name: string }>(
      `SELECT DISTINCT c.relname::text AS name
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND a.attname = 'tenant_id' AND a.attnum > 0 AND NOT a.attisdropped
          AND c.relkind IN ${RELKINDS}`,
      [schema],
    );
    return rows.map((r) => r.name);
  }

  async introspect(run: SqlRunner, options: IntrospectionOptions): Promise<CatalogTable[]> {
    const include = options.tables ? new Set(options.tables) : null;
    const exclude = new Set(options.excludeTables);
    const unsampled = new Set(options.unsampledTables ?? []);
    const tables = (
      await run<TableRow>(
        `SELECT c.oid::int8::text AS oid, c.relname AS name, c.relkind::text AS kind,
                obj_description(c.oid, 'pg_class') AS description
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ${RELKINDS} AND NOT c.relispartition
          ORDER BY c.relname`,
        [options.schema],
      )
    ).filter((t) => (include ? include.has(t.name) : !exclude.has(t.name)));
    if (tables.length === 0) return [];
    const oids = tables.map((t) => t.oid);
    const [columns, constraints, enumLabels] = await Promise.all([
      run<ColumnRow>(
        `SELECT a.attrelid::int8::text AS table_oid, a.attname::text AS name,
                format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
                col_description(a.attrelid, a.attnum) AS description, t.typtype::text AS typtype,
                t.typcategory::text AS category, a.atttypid::int8::text AS type_oid
           FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
          WHERE a.attrelid::int8::text = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attrelid, a.attnum`,
        [oids],
      ),
      run<ConstraintRow>(
        `SELECT con.conrelid::int8::text AS table_oid, con.contype::text AS kind,
                ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                       ORDER BY k.ord) AS columns,
                fc.relname::text AS referenced_table, fn.nspname::text AS referenced_schema,
                ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
                       ORDER BY k.ord) AS referenced_columns,
                pg_get_constraintdef(con.oid) AS definition
           FROM pg_constraint con
           LEFT JOIN pg_class fc ON fc.oid = con.confrelid
           LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
          WHERE con.conrelid::int8::text = ANY($1) AND con.contype IN ('p', 'f', 'c')
          ORDER BY con.conname`,
        [oids],
      ),
      run<{ type_oid: string; label: string }>(
        `SELECT e.enumtypid::int8::text AS type_oid, e.enumlabel::text AS label
           FROM pg_enum e ORDER BY e.enumtypid, e.enumsortorder`,
        [],
      ),
    ]);
    const labels = new Map<string, string[]>();
    for (const row of enumLabels) labels.set(row.type_oid, [...(labels.get(row.type_oid) ?? []), row.label]);

    const result: CatalogTable[] = [];
    for (const table of tables) {
      const own = constraints.filter((c) => c.table_oid === table.oid);
      const primaryKey = own.find((c) => c.kind === 'p')?.columns ?? [];
      const foreignKeys = own.filter((c) => c.kind === 'f');
      // Identifiers are not categories; a column of a composite key (metric_name in a metrics table) may be.
      const keyColumns = new Set([
        ...(primaryKey.length === 1 ? primaryKey : []),
        ...foreignKeys.flatMap((f) => f.columns),
      ]);
      const checks = new Map<string, string[]>();
      for (const check of own.filter((c) => c.kind === 'c' && c.columns.length === 1)) {
        const values = checkConstraintValues(check.definition);
        if (values) checks.set(check.columns[0], values);
      }
      const catalogColumns: CatalogColumn[] = [];
      for (const column of columns.filter((c) => c.table_oid === table.oid)) {
        let enumValues = labels.get(column.type_oid) ?? checks.get(column.name) ?? null;
        if (
          !enumValues &&
          options.enumMaxDistinct > 0 &&
          column.category === 'S' &&
          !keyColumns.has(column.name) &&
          SAMPLED_RELKINDS.has(table.kind) &&
          !unsampled.has(table.name)
        ) {
          enumValues = await this.enumeratedValues(run, options, table.name, column.name);
        }
        catalogColumns.push({
          name: column.name,
          type: column.type,
          description: column.description,
          nullable: column.nullable,
          primary_key: primaryKey.includes(column.name),
          ...(enumValues ? { enum_values: enumValues } : {}),
        });
      }
      result.push({
        name: table.name,
        description: table.description,
        primary_key: primaryKey,
        columns: catalogColumns,
        ...(foreignKeys.length > 0
          ? {
              references: foreignKeys.map((f) => ({
                columns: f.columns,
                table:
                  f.referenced_schema && f.referenced_schema !== options.schema
                    ? `${f.referenced_schema}.${f.referenced_table}`
                    : f.referenced_table!,
                referenced_columns: f.referenced_columns ?? [],
              })),
            }
          : {}),
      });
    }
    return result;
  }

  /**
   * The distinct values of a text column when there are few and they repeat (a category such as
   * `environment`), not when every row has its own (names, identifiers).
   */
  private async enumeratedValues(
    run: SqlRunner,
    options: IntrospectionOptions,
    table: string,
    column: string,
  ): Promise<string[] | null> {
    const rows = await run<{ v: string; n: number }>(
      `SELECT v, count(*)::int AS n
         FROM (SELECT ${quoteIdent(column)}::text AS v FROM ${quoteIdent(options.schema)}.${quoteIdent(table)}
                WHERE ${quoteIdent(column)} IS NOT NULL LIMIT $1) s
        GROUP BY v ORDER BY n DESC, v LIMIT $2`,
      [options.enumSampleRows, options.enumMaxDistinct + 1],
    );
    if (rows.length === 0 || rows.length > options.enumMaxDistinct) return null;
    const total = rows.reduce((sum, r) => sum + Number(r.n), 0);
    if (total < rows.length * 2) return null;
    if (rows.some((r) => r.v.length > MAX_ENUM_VALUE_LENGTH)) return null;
    return rows.map((r) => r.v).sort();
  }
}
