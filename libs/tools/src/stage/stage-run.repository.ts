import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { StageRunEntity, StageRunStatus } from './stage-run.entity';

/** Filters of the run list (all optional but the page). */
export interface StageRunQuery {
  stageName?: string;
  status?: StageRunStatus;
  traceId?: string;
  requestId?: string;
  userId?: string;
  caller?: string;
  limit: number;
  offset: number;
}

@Injectable()
export class StageRunRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async start(
    run: Pick<
      StageRunEntity,
      | 'tenantId'
      | 'stageName'
      | 'userId'
      | 'requestId'
      | 'traceId'
      | 'caller'
      | 'keyId'
      | 'request'
      | 'startedAt'
    >,
  ): Promise<string> {
    const repo = this.dataSource.getRepository(StageRunEntity);
    const saved = await repo.save(repo.create({ ...run, status: 'running', steps: [] }));
    return saved.id;
  }

  async finish(
    id: string,
    status: StageRunStatus,
    steps: object[],
    finishedAt: Date,
    durationMs: number,
    output: Record<string, unknown>,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE ops_stage_runs SET status = $2, steps = $3::jsonb, finished_at = $4, duration_ms = $5, output = $6::jsonb
       WHERE id = $1`,
      [id, status, JSON.stringify(steps), finishedAt, durationMs, JSON.stringify(output)],
    );
  }

  /** A page of runs, newest first, with each run's step counts computed in the database. */
  async list(
    tenantId: string,
    query: StageRunQuery,
  ): Promise<{ rows: Array<StageRunEntity & { total: number; succeeded: number }>; total: number }> {
    const where = ['tenant_id = $1'];
    const params: unknown[] = [tenantId];
    if (query.stageName) where.push(`stage_name = $${params.push(query.stageName)}`);
    if (query.status) where.push(`status = $${params.push(query.status)}`);
    if (query.traceId) where.push(`trace_id = $${params.push(query.traceId)}`);
    if (query.requestId) where.push(`request_id = $${params.push(query.requestId)}`);
    if (query.userId) where.push(`user_id = $${params.push(query.userId)}`);
    if (query.caller) where.push(`caller = $${params.push(query.caller)}`);
    const filter = where.join(' AND ');
    const [{ count }]: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) FROM ops_stage_runs WHERE ${filter}`,
      params,
    );
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT id, stage_name, status, user_id, request_id, trace_id, caller, key_id, started_at, finished_at, duration_ms,
              jsonb_array_length(steps) AS total,
              (SELECT count(*) FROM jsonb_array_elements(steps) e WHERE e->>'status' = 'succeeded') AS succeeded
       FROM ops_stage_runs WHERE ${filter}
       ORDER BY created_at DESC, id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, query.offset],
    );
    return {
      total: Number(count),
      rows: rows.map((r) =>
        Object.assign(new StageRunEntity(), {
          id: r.id as string,
          tenantId,
          stageName: r.stage_name as string,
          status: r.status as StageRunStatus,
          userId: r.user_id as string,
          requestId: (r.request_id as string | null) ?? null,
          traceId: (r.trace_id as string | null) ?? null,
          caller: (r.caller as string | null) ?? null,
          keyId: (r.key_id as string | null) ?? null,
          startedAt: new Date(r.started_at as string),
          finishedAt: r.finished_at ? new Date(r.finished_at as string) : null,
          durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
          total: Number(r.total),
          succeeded: Number(r.succeeded),
        }),
      ),
    };
  }

  find(tenantId: string, id: string): Promise<StageRunEntity | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      return Promise.resolve(null);
    return this.dataSource.getRepository(StageRunEntity).findOne({ where: { tenantId, id } });
  }
}
