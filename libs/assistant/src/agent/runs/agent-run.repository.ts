import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsWhere, In } from 'typeorm';
import { runAsSystem } from '@app/platform';
import { AgentRunEntity, AgentRunPendingCall } from './agent-run.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type NewAgentRun = Pick<
  AgentRunEntity,
  | 'tenantId'
  | 'status'
  | 'mode'
  | 'userId'
  | 'callerId'
  | 'keyId'
  | 'caller'
  | 'requestId'
  | 'traceId'
  | 'prompt'
  | 'callbackUrl'
  | 'pending'
  | 'state'
  | 'result'
>;

export interface AgentRunQuery {
  status?: string;
  userId?: string;
  requestId?: string;
  traceId?: string;
  keyId?: string;
  caller?: string;
  limit: number;
  offset: number;
}

/** A decision recorded on a paused run; `ready` when it was the last one and this caller resumes it. */
export interface RecordedDecision {
  run: AgentRunEntity;
  ready: boolean;
}

@Injectable()
export class AgentRunRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(AgentRunEntity);
  }

  create(run: NewAgentRun): Promise<AgentRunEntity> {
    return this.repo.save(this.repo.create(run));
  }

  find(tenantId: string, id: string): Promise<AgentRunEntity | null> {
    if (!UUID.test(id)) return Promise.resolve(null);
    return this.repo.findOne({ where: { tenantId, id } });
  }

  /** The tenant's runs, newest first, filtered on their ids. */
  async list(tenantId: string, query: AgentRunQuery): Promise<{ rows: AgentRunEntity[]; total: number }> {
    const where: FindOptionsWhere<AgentRunEntity> = { tenantId };
    if (query.status) where.status = query.status as AgentRunEntity['status'];
    if (query.userId) where.userId = query.userId;
    if (query.requestId) where.requestId = query.requestId;
    if (query.traceId) where.traceId = query.traceId;
    if (query.keyId) where.keyId = query.keyId;
    if (query.caller) where.caller = query.caller;
    const [rows, total] = await this.repo.findAndCount({
      where,
      order: { createdAt: 'DESC', id: 'ASC' },
      take: query.limit,
      skip: query.offset,
    });
    return { rows, total };
  }

  async update(
    tenantId: string,
    id: string,
    changes: Partial<Pick<AgentRunEntity, 'status' | 'mode' | 'pending' | 'state' | 'result'>>,
  ): Promise<void> {
    await this.repo.update({ tenantId, id }, changes as never);
  }

  /**
   * Claims runs left `resuming` longer than the lease (the process continuing them died), across
   * tenants, in one UPDATE so that two schedulers never take the same run: the claim renews the lease
   * (`updated_at`) and counts the takeover in `state.takeovers`.
   */
  claimStuckResuming(leaseSeconds: number, limit = 20): Promise<AgentRunEntity[]> {
    return runAsSystem('agent runs: take over runs stuck resuming', async () => {
      const rows: Array<{ id: string }> = await this.dataSource.query(
        // A CTE: a bare UPDATE ... RETURNING comes back from TypeORM as [rows, count].
        `WITH claimed AS (UPDATE agent_runs SET updated_at = now(),
                state = jsonb_set(COALESCE(state, '{}'::jsonb), '{takeovers}',
                                  to_jsonb(COALESCE((state->>'takeovers')::int, 0) + 1))
          WHERE id IN (SELECT id FROM agent_runs
                        WHERE status = 'resuming' AND updated_at < now() - make_interval(secs => $1)
                        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING id) SELECT id FROM claimed`,
        [leaseSeconds, limit],
      );
      if (!rows.length) return [];
      return this.repo.find({ where: { id: In(rows.map((row) => row.id)) } });
    });
  }

  /**
   * Stores a person's decision on the paused run waiting for `actionId`, under a row lock, so that
   * decisions on two calls of one run made at once (in two processes) see each other: exactly the
   * one that decides the last open call gets `ready` and moves the run to `resuming`.
   */
  recordDecision(
    tenantId: string,
    actionId: string,
    decision: Pick<AgentRunPendingCall, 'decision' | 'result' | 'decided_by'>,
  ): Promise<RecordedDecision | null> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Array<{ id: string }> = await manager.query(
        `SELECT id FROM agent_runs WHERE tenant_id = $1 AND status = 'awaiting_confirmation'
           AND pending @> $2::jsonb FOR UPDATE`,
        [tenantId, JSON.stringify([{ action_id: actionId }])],
      );
      if (!rows.length) return null;
      const repo = manager.getRepository(AgentRunEntity);
      const run = await repo.findOneOrFail({ where: { tenantId, id: rows[0].id } });
      run.pending = run.pending.map((call) =>
        call.action_id === actionId && call.decision === null ? { ...call, ...decision } : call,
      );
      const ready = run.pending.every((call) => call.decision !== null);
      if (ready) run.status = 'resuming';
      await repo.update({ tenantId, id: run.id }, { pending: run.pending as never, status: run.status });
      return { run, ready };
    });
  }
}
