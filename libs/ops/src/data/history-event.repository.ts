import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ciWhere, CiFilters } from './configuration-item.repository';
import { likePattern, SqlParams } from './sql-params.util';

export interface HistorySearch {
  tenantId: string;
  start: Date;
  end: Date;
  kinds?: string[];
  severities?: string[];
  keywords?: string[];
  ciFilters?: CiFilters;
  order: 'asc' | 'desc';
  limit: number;
}

export interface HistoryEventView {
  id: string;
  occurred_at: string;
  kind: string;
  severity: string;
  title: string;
  details: string | null;
  attributes: Record<string, unknown>;
  ci_id: string | null;
  ci_name: string | null;
  environment: string | null;
}

@Injectable()
export class HistoryEventRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async search(search: HistorySearch): Promise<{ events: HistoryEventView[]; total: number }> {
    const params = new SqlParams();
    const where = [
      `e.tenant_id = ${params.add(search.tenantId)}`,
      `e.occurred_at >= ${params.add(search.start)}`,
      `e.occurred_at < ${params.add(search.end)}`,
    ];
    if (search.kinds?.length) where.push(`e.kind = ANY(${params.add(search.kinds)}::text[])`);
    if (search.severities?.length) where.push(`e.severity = ANY(${params.add(search.severities)}::text[])`);
    for (const keyword of search.keywords ?? []) {
      const pattern = params.add(likePattern(keyword));
      where.push(`(e.title ILIKE ${pattern} OR e.details ILIKE ${pattern})`);
    }
    const scoped = search.ciFilters && Object.keys(search.ciFilters).length > 0;
    if (scoped) where.push(ciWhere(params, search.tenantId, search.ciFilters!));
    const rows: Array<Omit<HistoryEventView, 'occurred_at'> & { occurred_at: Date; total: string }> =
      await this.dataSource.query(
        `SELECT e.id, e.occurred_at, e.kind, e.severity, e.title, e.details, e.attributes, e.ci_id,
                ci.name AS ci_name, ci.environment, count(*) OVER () AS total
         FROM ops_history_events e
         ${scoped ? 'JOIN' : 'LEFT JOIN'} ops_configuration_items ci ON ci.id = e.ci_id AND ci.tenant_id = e.tenant_id
         WHERE ${where.join(' AND ')}
         ORDER BY e.occurred_at ${search.order === 'asc' ? 'ASC' : 'DESC'}, e.id
         LIMIT ${params.add(search.limit)}`,
        params.values,
      );
    return {
      events: rows.map(({ total: _total, occurred_at, ...event }) => ({
        ...event,
        occurred_at: new Date(occurred_at).toISOString(),
      })),
      total: rows.length ? Number(rows[0].total) : 0,
    };
  }
}
