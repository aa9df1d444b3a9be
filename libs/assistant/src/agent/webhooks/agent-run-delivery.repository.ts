import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { runAsSystem } from '@app/platform';
import {
  AgentRunDeliveryEntity,
  DeliveryAttempt,
  DeliveryStatus,
  RunWebhookEvent,
} from './agent-run-delivery.entity';

export interface NewDelivery {
  tenantId: string;
  runId: string;
  event: RunWebhookEvent;
  url: string;
  body: string;
}

/** Where an attempt left a delivery. */
export interface DeliveryOutcome {
  status: Exclude<DeliveryStatus, 'delivering'>;
  attempt: DeliveryAttempt;
  nextAttemptAt: Date | null;
}

@Injectable()
export class AgentRunDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(AgentRunDeliveryEntity);
  }

  /** Stores a new delivery already claimed by this process (its first attempt follows at once). */
  createClaimed(delivery: NewDelivery & { id: string }): Promise<AgentRunDeliveryEntity> {
    const now = new Date();
    return this.repo.save(
      this.repo.create({
        ...delivery,
        status: 'delivering',
        claimedAt: now,
        nextAttemptAt: now,
        attempts: [],
      }),
    );
  }

  forRun(tenantId: string, runId: string): Promise<AgentRunDeliveryEntity[]> {
    return this.repo.find({ where: { tenantId, runId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Appends an attempt and moves the delivery on (delivered, failed, or pending until the next attempt). */
  async recordAttempt(delivery: AgentRunDeliveryEntity, outcome: DeliveryOutcome): Promise<void> {
    await this.dataSource.query(
      `UPDATE agent_run_deliveries
          SET status = $3::varchar, attempt_count = attempt_count + 1, attempts = attempts || $4::jsonb,
              next_attempt_at = $5::timestamptz, claimed_at = NULL,
              delivered_at = CASE WHEN $3::varchar = 'delivered' THEN now() ELSE delivered_at END,
              updated_at = now()
        WHERE tenant_id = $1 AND id = $2`,
      [
        delivery.tenantId,
        delivery.id,
        outcome.status,
        JSON.stringify([outcome.attempt]),
        outcome.nextAttemptAt,
      ],
    );
  }

  /**
   * Claims deliveries whose next attempt is due, and deliveries left `delivering` past the lease (the
   * process sending them died), across tenants, in one UPDATE: two schedulers never take the same one.
   */
  claimDue(leaseSeconds: number, limit = 20): Promise<AgentRunDeliveryEntity[]> {
    return runAsSystem(
      'agent run webhooks: claim due deliveries',
      async () => {
        const rows: Array<{ id: string }> = await this.dataSource.query(
          // A CTE: a bare UPDATE ... RETURNING comes back from TypeORM as [rows, count].
          `WITH claimed AS (UPDATE agent_run_deliveries SET status = 'delivering', claimed_at = now(), updated_at = now()
          WHERE id IN (SELECT id FROM agent_run_deliveries
                        WHERE (status = 'pending' AND next_attempt_at <= now())
                           OR (status = 'delivering' AND claimed_at < now() - make_interval(secs => $1))
                        ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING id) SELECT id FROM claimed`,
          [leaseSeconds, limit],
        );
        if (!rows.length) return [];
        return this.repo.find({ where: { id: In(rows.map((row) => row.id)) } });
      },
      // A poll every WEBHOOK_RETRY_CHECK_SECONDS: audited at debug level, like the job claims.
      { quiet: true },
    );
  }
}
