import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { StageRunEntity, StageRunStatus } from './stage-run.entity';

@Injectable()
export class StageRunRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async start(
    run: Pick<
      StageRunEntity,
      'tenantId' | 'stageName' | 'userId' | 'requestId' | 'traceId' | 'request' | 'startedAt'
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
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE ops_stage_runs SET status = $2, steps = $3::jsonb, finished_at = $4, duration_ms = $5 WHERE id = $1`,
      [id, status, JSON.stringify(steps), finishedAt, durationMs],
    );
  }

  find(tenantId: string, id: string): Promise<StageRunEntity | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
      return Promise.resolve(null);
    return this.dataSource.getRepository(StageRunEntity).findOne({ where: { tenantId, id } });
  }
}
