import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PendingActionEntity, PendingActionStatus } from './pending-action.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class PendingActionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(PendingActionEntity);
  }

  create(
    action: Pick<
      PendingActionEntity,
      'tenantId' | 'tool' | 'input' | 'caller' | 'requestedBy' | 'requestId' | 'expiresAt'
    >,
  ): Promise<PendingActionEntity> {
    return this.repo.save(this.repo.create({ ...action, status: 'pending' }));
  }

  find(tenantId: string, id: string): Promise<PendingActionEntity | null> {
    if (!UUID.test(id)) return Promise.resolve(null);
    return this.repo.findOne({ where: { tenantId, id } });
  }

  /** Marks past-due pending actions of the tenant expired, so lists and decisions see one truth. */
  async expire(tenantId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE tool_pending_actions SET status = 'expired' WHERE tenant_id = $1 AND status = 'pending' AND expires_at <= now()`,
      [tenantId],
    );
  }

  list(
    tenantId: string,
    status: PendingActionStatus | undefined,
    limit: number,
  ): Promise<PendingActionEntity[]> {
    return this.repo.find({
      where: { tenantId, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC' },
      take: limit,
    });
  }

  /**
   * Moves a still pending, unexpired action to its decision in one statement, so two people (or two
   * processes) confirming at once run it at most once. False when it was not pending any more.
   */
  async decide(
    tenantId: string,
    id: string,
    status: 'confirmed' | 'rejected',
    decidedBy: string,
  ): Promise<boolean> {
    // Wrapped in a SELECT so the driver returns the rows (a bare UPDATE answers [rows, count]).
    const rows: unknown[] = await this.dataSource.query(
      `WITH decided AS (
         UPDATE tool_pending_actions SET status = $3, decided_by = $4, decided_at = now()
          WHERE tenant_id = $1 AND id = $2 AND status = 'pending' AND expires_at > now() RETURNING id
       ) SELECT id FROM decided`,
      [tenantId, id, status, decidedBy],
    );
    return rows.length === 1;
  }

  async recordResult(tenantId: string, id: string, result: object): Promise<void> {
    await this.dataSource.query(
      `UPDATE tool_pending_actions SET result = $3::jsonb WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, JSON.stringify(result)],
    );
  }
}
