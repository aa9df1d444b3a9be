import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { METRIC_STEPS } from '../data/ops-vocabulary';
import type { DemoEvent, DemoItem, DemoRelation } from './demo-dataset';
import { DemoLoadEntity } from './demo-load.entity';

/**
 * How each metric is synthesised in SQL from an item's `attributes.load` profile: `b` is the item's
 * base level, `d` a daily cycle (0..1, peak 14:00 KST), `w` a weekend dip, `r` deterministic noise
 * (0..1) from the item's sequence number and the sample time.
 */
export const DEMO_METRIC_EXPRESSIONS: Record<string, { load: string; expression: string }> = {
  cpu_usage: {
    load: 'cpu',
    expression: 'least(99.5, greatest(0.5, b + 16 * (d - 0.5) * w + 10 * (r - 0.5)))',
  },
  memory_usage: { load: 'memory', expression: 'least(99, greatest(5, b + 6 * (d - 0.5) + 4 * (r - 0.5)))' },
  disk_io_read: { load: 'disk_io', expression: 'b * (0.5 + 0.9 * d) * (0.7 + 0.6 * r)' },
  disk_io_write: { load: 'disk_io', expression: 'b * 0.6 * (0.4 + 0.9 * d) * (0.7 + 0.6 * r)' },
  network_in: { load: 'network', expression: 'b * (0.3 + 1.0 * d * w) * (0.8 + 0.4 * r)' },
  network_out: { load: 'network', expression: 'b * 0.7 * (0.3 + 1.0 * d * w) * (0.8 + 0.4 * r)' },
  db_connections: { load: 'connections', expression: 'round(b * (0.4 + 0.8 * d * w) * (0.9 + 0.2 * r))' },
  request_rate: { load: 'requests', expression: 'b * (0.2 + 1.2 * d * w) * (0.9 + 0.2 * r)' },
  error_rate: { load: 'errors', expression: 'b * (0.4 + 1.2 * r * r)' },
  latency_p95_ms: { load: 'latency', expression: 'b * (0.8 + 0.5 * d) * (0.85 + 0.4 * r)' },
};

/** Deterministic noise in [0, 1): two rounds of an LCG over (item sequence, 5-minute slot, metric key). */
const NOISE = `((((p.seq * 2654435761 + g.slot * 40503 + $3::bigint) % 2147483648) * 1103515245 + 12345) % 2147483648)::float8 / 2147483648`;

@Injectable()
export class DemoDataRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async upsertItems(tenantId: string, items: DemoItem[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ops_configuration_items (tenant_id, name, ci_type, environment, status, owner, tags, description, attributes)
       SELECT $1, i.name, i.ci_type, i.environment, i.status, i.owner,
              ARRAY(SELECT jsonb_array_elements_text(i.tags)), i.description, i.attributes
       FROM jsonb_to_recordset($2::jsonb) AS i(name text, ci_type text, environment text, status text, owner text,
            tags jsonb, description text, attributes jsonb)
       ON CONFLICT (tenant_id, name) DO NOTHING`,
      [tenantId, JSON.stringify(items)],
    );
  }

  async insertRelations(tenantId: string, relations: DemoRelation[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ops_ci_relations (tenant_id, source_id, target_id, relation_type)
       SELECT $1, s.id, t.id, r.type
       FROM jsonb_to_recordset($2::jsonb) AS r(source text, target text, type text)
       JOIN ops_configuration_items s ON s.tenant_id = $1 AND s.name = r.source
       JOIN ops_configuration_items t ON t.tenant_id = $1 AND t.name = r.target
       ON CONFLICT (tenant_id, source_id, target_id, relation_type) DO NOTHING`,
      [tenantId, JSON.stringify(relations)],
    );
  }

  async insertEvents(tenantId: string, anchor: Date, events: DemoEvent[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ops_history_events (tenant_id, ci_id, occurred_at, kind, severity, title, details, attributes, external_id)
       SELECT $1, ci.id, $2::timestamptz - make_interval(mins => e.minutes_ago), e.kind, e.severity, e.title, e.details,
              e.attributes, e.external_id
       FROM jsonb_to_recordset($3::jsonb) AS e(external_id text, ci text, minutes_ago int, kind text, severity text,
            title text, details text, attributes jsonb)
       LEFT JOIN ops_configuration_items ci ON ci.tenant_id = $1 AND ci.name = e.ci
       ON CONFLICT (tenant_id, external_id) DO NOTHING`,
      [tenantId, anchor, JSON.stringify(events)],
    );
  }

  /** Synthesises one metric for every item with the matching load profile, samples in [from, to). */
  async generateSamples(
    tenantId: string,
    metric: string,
    stepSeconds: number,
    from: Date,
    to: Date,
  ): Promise<void> {
    const spec = DEMO_METRIC_EXPRESSIONS[metric];
    const metricKey = Object.keys(DEMO_METRIC_EXPRESSIONS).indexOf(metric) * 7919 + 17;
    await this.dataSource.query(
      `INSERT INTO ops_metric_samples (tenant_id, ci_id, metric_name, step_seconds, ts, value)
       SELECT ci.tenant_id, ci.id, $2, $4, g.ts, round((${spec.expression})::numeric, 3)::float8
       FROM ops_configuration_items ci
       CROSS JOIN LATERAL (
         SELECT (ci.attributes -> 'load' ->> 'seq')::bigint AS seq,
                (ci.attributes -> 'load' ->> $7)::float8 AS b
       ) p
       CROSS JOIN LATERAL (
         SELECT ts, extract(epoch FROM ts)::bigint / 300 AS slot,
                0.5 + 0.5 * cos(2 * pi() * ((extract(epoch FROM ts) / 3600.0 - 5) / 24)) AS d,
                CASE WHEN extract(isodow FROM ts) >= 6 THEN 0.7 ELSE 1.0 END AS w
         FROM generate_series($5::timestamptz, $6::timestamptz - make_interval(secs => $4), make_interval(secs => $4)) AS ts
       ) g
       CROSS JOIN LATERAL (SELECT ${NOISE} AS r) n
       WHERE ci.tenant_id = $1 AND ci.attributes -> 'load' ? $7
       ON CONFLICT DO NOTHING`,
      [tenantId, metric, metricKey, stepSeconds, from, to, spec.load],
    );
  }

  /** Hourly samples as the average of the 5-minute samples of each complete hour in [from, to). */
  async rollUpHourly(tenantId: string, metric: string, from: Date, to: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ops_metric_samples (tenant_id, ci_id, metric_name, step_seconds, ts, value)
       SELECT tenant_id, ci_id, metric_name, $5, date_trunc('hour', ts), round(avg(value)::numeric, 3)::float8
       FROM ops_metric_samples
       WHERE tenant_id = $1 AND metric_name = $2 AND step_seconds = $6 AND ts >= $3 AND ts < $4
       GROUP BY tenant_id, ci_id, metric_name, date_trunc('hour', ts)
       ON CONFLICT DO NOTHING`,
      [tenantId, metric, from, to, METRIC_STEPS.hourly, METRIC_STEPS.fine],
    );
  }

  /** Fresh planner statistics after a bulk load (sql tools refuse queries by estimated cost). */
  /** One statement per table, so requests interleave on the single-threaded embedded database. */
  async analyze(): Promise<void> {
    // Only the owner may ANALYZE: the migration's SECURITY DEFINER function runs it.
    await this.dataSource.query('SELECT ops_analyze_ops_tables()');
  }

  async counts(tenantId: string): Promise<Record<string, number>> {
    const [row]: Array<Record<string, string>> = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM ops_configuration_items WHERE tenant_id = $1) AS items,
              (SELECT count(*) FROM ops_ci_relations WHERE tenant_id = $1) AS relations,
              (SELECT count(*) FROM ops_history_events WHERE tenant_id = $1) AS events,
              (SELECT count(*) FROM ops_metric_samples WHERE tenant_id = $1) AS metric_samples`,
      [tenantId],
    );
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  }

  findLoad(tenantId: string): Promise<DemoLoadEntity | null> {
    return this.dataSource.getRepository(DemoLoadEntity).findOne({ where: { tenantId } });
  }

  async updateLoad(tenantId: string, changes: Partial<Omit<DemoLoadEntity, 'tenantId'>>): Promise<void> {
    await this.dataSource.getRepository(DemoLoadEntity).update({ tenantId }, changes);
  }

  /** Marks the tenant as loading unless another process already is (true: this caller may load). */
  async claimLoad(tenantId: string, scale: string, version: number, staleBefore: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO ops_demo_loads (tenant_id, state, scale, dataset_version, phase, counts, error, started_at, finished_at)
       VALUES ($1, 'loading', $2, $3, 'starting', '{}', NULL, now(), NULL)
       ON CONFLICT (tenant_id) DO UPDATE SET state = 'loading', scale = $2, dataset_version = $3, phase = 'starting',
         error = NULL, started_at = now(), finished_at = NULL, updated_at = now()
       WHERE ops_demo_loads.state <> 'loading' OR ops_demo_loads.updated_at < $4
       RETURNING tenant_id`,
      [tenantId, scale, version, staleBefore],
    );
    return rows.length > 0;
  }
}
