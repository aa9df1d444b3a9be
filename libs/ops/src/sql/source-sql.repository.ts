import { Injectable } from '@nestjs/common';
import { escapeIdentifier } from 'pg';
import { SourceDatabasePools } from '@app/asset-registry';
import { jsonValue, type SqlRows } from './sql-tool.repository';

/**
 * Runs checked queries of sql tools and query_sql on a tenant's registered `source` database: a
 * connection from the tenant's pool for that source, a read-only transaction, a statement timeout,
 * `search_path` pinned to the source's schema, and at most `rowLimit` rows back. The database's own
 * role is the last wall (SECURITY.md: give the source a read-only role).
 */
@Injectable()
export class SourceSqlRepository {
  constructor(private readonly pools: SourceDatabasePools) {}

  run(
    tenantId: string,
    source: string,
    checkedText: string,
    values: unknown[],
    rowLimit: number,
    timeoutMs: number,
  ): Promise<SqlRows> {
    return this.pools.withSession(tenantId, source, async ({ client, schema }) => {
      await client.query('BEGIN READ ONLY');
      try {
        await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
        await client.query(`SELECT pg_catalog.set_config('search_path', $1, true)`, [
          escapeIdentifier(schema),
        ]);
        // The guard parsed the text with standard-conforming strings; the server must read it the same way.
        await client.query('SET LOCAL standard_conforming_strings = on');
        const result = await client.query<Record<string, unknown>>({
          text: `SELECT * FROM (\n${checkedText}\n) AS sql_tool_result LIMIT ${Math.floor(rowLimit) + 1}`,
          values,
        });
        const types = new Map(result.fields.map((f) => [f.name, f.dataTypeID]));
        return {
          columns: result.fields.map((f) => ({ name: f.name })),
          rows: result.rows
            .slice(0, rowLimit)
            .map((row) =>
              Object.fromEntries(
                Object.entries(row).map(([key, value]) => [key, jsonValue(value, types.get(key) ?? 0)]),
              ),
            ),
          truncated: result.rows.length > rowLimit,
        };
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
      }
    });
  }
}
