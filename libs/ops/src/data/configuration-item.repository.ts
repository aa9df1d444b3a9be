import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { likePattern, SqlParams } from './sql-params.util';

export interface CiFilters {
  ids?: string[];
  names?: string[];
  ci_type?: string[];
  environment?: string[];
  status?: string[];
  owner?: string[];
  tags?: string[];
  attributes?: Record<string, unknown>;
}

export interface CiView {
  id: string;
  name: string;
  ci_type: string;
  environment: string;
  status: string;
  owner: string | null;
  tags: string[];
  attributes: Record<string, unknown>;
  description: string | null;
}

export interface CiSearch {
  tenantId: string;
  /** Every keyword must match some text field (name, type, environment, status, owner, tags, description). */
  keywords: string[];
  filters: CiFilters;
  limit: number;
  offset: number;
}

const CI_COLUMNS = `id, name, ci_type, environment, status, owner, tags, attributes, description`;

/** Builds the WHERE clause shared by item lookups and metric/history scoping. */
export function ciWhere(params: SqlParams, tenantId: string, filters: CiFilters, alias = 'ci'): string {
  const where = [`${alias}.tenant_id = ${params.add(tenantId)}`];
  if (filters.ids) where.push(`${alias}.id = ANY(${params.add(filters.ids)}::uuid[])`);
  if (filters.names?.length) where.push(`${alias}.name = ANY(${params.add(filters.names)}::text[])`);
  if (filters.ci_type?.length) where.push(`${alias}.ci_type = ANY(${params.add(filters.ci_type)}::text[])`);
  if (filters.environment?.length)
    where.push(`${alias}.environment = ANY(${params.add(filters.environment)}::text[])`);
  if (filters.status?.length) where.push(`${alias}.status = ANY(${params.add(filters.status)}::text[])`);
  if (filters.owner?.length) where.push(`${alias}.owner = ANY(${params.add(filters.owner)}::text[])`);
  if (filters.tags?.length) where.push(`${alias}.tags @> ${params.add(filters.tags)}::text[]`);
  if (filters.attributes && Object.keys(filters.attributes).length)
    where.push(`${alias}.attributes @> ${params.add(JSON.stringify(filters.attributes))}::jsonb`);
  return where.join(' AND ');
}

@Injectable()
export class ConfigurationItemRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async search(search: CiSearch): Promise<{ items: CiView[]; total: number }> {
    const params = new SqlParams();
    const where = [ciWhere(params, search.tenantId, search.filters)];
    for (const keyword of search.keywords) {
      const pattern = params.add(likePattern(keyword));
      where.push(
        `(ci.name ILIKE ${pattern} OR ci.ci_type ILIKE ${pattern} OR ci.environment ILIKE ${pattern}` +
          ` OR ci.status ILIKE ${pattern} OR ci.owner ILIKE ${pattern} OR ci.description ILIKE ${pattern}` +
          ` OR array_to_string(ci.tags, ' ') ILIKE ${pattern})`,
      );
    }
    const limit = params.add(search.limit);
    const offset = params.add(search.offset);
    const rows: Array<CiView & { total: string }> = await this.dataSource.query(
      `SELECT ${CI_COLUMNS}, count(*) OVER () AS total FROM ops_configuration_items ci
       WHERE ${where.join(' AND ')} ORDER BY ci.name LIMIT ${limit} OFFSET ${offset}`,
      params.values,
    );
    const total = rows.length ? Number(rows[0].total) : await this.count(search);
    return { items: rows.map(({ total: _total, ...item }) => item), total };
  }

  /** Items by id or name (each reference may be either), for graph scopes and metric filters. */
  async findByRefs(tenantId: string, refs: string[]): Promise<CiView[]> {
    const uuids = refs.filter((r) =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(r),
    );
    return this.dataSource.query(
      `SELECT ${CI_COLUMNS} FROM ops_configuration_items ci
       WHERE ci.tenant_id = $1 AND (ci.id = ANY($2::uuid[]) OR ci.name = ANY($3::text[])) ORDER BY ci.name`,
      [tenantId, uuids, refs],
    );
  }

  async findByIds(tenantId: string, ids: string[]): Promise<CiView[]> {
    if (!ids.length) return [];
    return this.dataSource.query(
      `SELECT ${CI_COLUMNS} FROM ops_configuration_items ci WHERE ci.tenant_id = $1 AND ci.id = ANY($2::uuid[])`,
      [tenantId, ids],
    );
  }

  /** Whether the tenant has any configuration item at all (an empty answer then means "nothing loaded"). */
  async hasAny(tenantId: string): Promise<boolean> {
    const rows: { present: boolean }[] = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM ops_configuration_items WHERE tenant_id = $1) AS present`,
      [tenantId],
    );
    return rows[0]?.present === true;
  }

  private async count(search: CiSearch): Promise<number> {
    if (search.offset === 0) return 0;
    const { total } = await this.search({ ...search, offset: 0, limit: 1 });
    return total;
  }
}
