import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Aggregation } from '@app/tools';
import { ciWhere, CiFilters } from './configuration-item.repository';
import { SqlParams } from './sql-params.util';

const AGGREGATE_SQL: Record<Aggregation, string> = {
  avg: 'avg(m.value)',
  max: 'max(m.value)',
  min: 'min(m.value)',
  sum: 'sum(m.value)',
  count: 'count(*)::float8',
  p95: 'percentile_cont(0.95) WITHIN GROUP (ORDER BY m.value)',
};

export interface MetricScope {
  tenantId: string;
  metric: string;
  stepSeconds: number;
  start: Date;
  end: Date;
  aggregation: Aggregation;
  /** Restricts to matching items; absent: every item reporting the metric. */
  ciFilters?: CiFilters;
}

export interface ItemAggregate {
  ci_id: string;
  ci_name: string;
  ci_type: string;
  environment: string;
  value: number;
  sample_count: number;
}

export interface SeriesPoint {
  ci_id: string | null;
  bucket: Date;
  value: number;
}

@Injectable()
export class MetricRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Start of the 5-minute data kept for a metric (null when there is none). */
  async fineWindowStart(tenantId: string, metric: string, stepSeconds: number): Promise<Date | null> {
    const [row]: Array<{ start: Date | null }> = await this.dataSource.query(
      `SELECT min(ts) AS start FROM ops_metric_samples WHERE tenant_id = $1 AND metric_name = $2 AND step_seconds = $3`,
      [tenantId, metric, stepSeconds],
    );
    return row?.start ? new Date(row.start) : null;
  }

  /** One aggregate per item, ordered by value; `limit` gives top-N. */
  async perItem(scope: MetricScope, order: 'asc' | 'desc', limit: number): Promise<ItemAggregate[]> {
    const params = new SqlParams();
    const where = this.where(params, scope);
    const rows: Array<ItemAggregate & { sample_count: string }> = await this.dataSource.query(
      `SELECT ci.id AS ci_id, ci.name AS ci_name, ci.ci_type, ci.environment,
              ${AGGREGATE_SQL[scope.aggregation]}::float8 AS value, count(*) AS sample_count
       FROM ops_metric_samples m JOIN ops_configuration_items ci ON ci.id = m.ci_id AND ci.tenant_id = m.tenant_id
       WHERE ${where}
       GROUP BY ci.id, ci.name, ci.ci_type, ci.environment
       ORDER BY value ${order === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, ci.name
       LIMIT ${params.add(limit)}`,
      params.values,
    );
    return rows.map((r) => ({ ...r, value: Number(r.value), sample_count: Number(r.sample_count) }));
  }

  /** One aggregate over every matching sample. */
  async overall(scope: MetricScope): Promise<{ value: number | null; sample_count: number; items: number }> {
    const params = new SqlParams();
    const where = this.where(params, scope);
    const [row]: Array<{ value: number | null; sample_count: string; items: string }> =
      await this.dataSource.query(
        `SELECT ${AGGREGATE_SQL[scope.aggregation]}::float8 AS value, count(*) AS sample_count,
              count(DISTINCT m.ci_id) AS items
       FROM ops_metric_samples m JOIN ops_configuration_items ci ON ci.id = m.ci_id AND ci.tenant_id = m.tenant_id
       WHERE ${where}`,
        params.values,
      );
    return {
      value: row.value === null ? null : Number(row.value),
      sample_count: Number(row.sample_count),
      items: Number(row.items),
    };
  }

  /** Bucketed series, per item (`perItem`) or over all matching items together. */
  async series(scope: MetricScope, bucketSeconds: number, perItem: boolean): Promise<SeriesPoint[]> {
    const params = new SqlParams();
    const where = this.where(params, scope);
    const bucket = `date_bin(${params.add(`${bucketSeconds} seconds`)}::interval, m.ts, TIMESTAMPTZ '2000-01-03 00:00:00+00')`;
    const rows: Array<{ ci_id: string | null; bucket: Date; value: number }> = await this.dataSource.query(
      `SELECT ${perItem ? 'm.ci_id' : 'NULL::uuid AS ci_id'}, ${bucket} AS bucket,
              ${AGGREGATE_SQL[scope.aggregation]}::float8 AS value
       FROM ops_metric_samples m JOIN ops_configuration_items ci ON ci.id = m.ci_id AND ci.tenant_id = m.tenant_id
       WHERE ${where}
       GROUP BY ${perItem ? 'm.ci_id, ' : ''}bucket ORDER BY ${perItem ? 'm.ci_id, ' : ''}bucket`,
      params.values,
    );
    return rows.map((r) => ({ ci_id: r.ci_id, bucket: new Date(r.bucket), value: Number(r.value) }));
  }

  private where(params: SqlParams, scope: MetricScope): string {
    return [
      ciWhere(params, scope.tenantId, scope.ciFilters ?? {}),
      `m.tenant_id = ${params.add(scope.tenantId)}`,
      `m.metric_name = ${params.add(scope.metric)}`,
      `m.step_seconds = ${params.add(scope.stepSeconds)}`,
      `m.ts >= ${params.add(scope.start)}`,
      `m.ts < ${params.add(scope.end)}`,
    ].join(' AND ');
  }
}
