import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { TenantEntity } from '@app/platform';
import { AgentRunEntity } from '../runs/agent-run.entity';

/**
 * `pending`: an attempt is due at `next_attempt_at`; `delivering`: a process is sending it (since
 * `claimed_at`; past the lease the scheduler takes it over); `delivered`: the receiver answered 2xx;
 * `failed`: the attempts are used up, or the receiver refused it (a 3xx/4xx other than 408/429).
 */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The events a run's webhook reports: the run paused on held calls, or reached a final state. */
export const RUN_WEBHOOK_EVENTS = [
  'run.awaiting_confirmation',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;
export type RunWebhookEvent = (typeof RUN_WEBHOOK_EVENTS)[number];

/** One attempt to deliver: when, how long, and what came back (a status code, or why none did). */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** The start of the receiver's answer (for the operator reading why it failed). */
  response_excerpt?: string;
  outcome: 'delivered' | 'retry' | 'failed';
}

/** One webhook event of an agent run: the exact body sent each attempt, and the attempts so far. */
@Entity('agent_run_deliveries')
@Index(['status', 'nextAttemptAt'])
@Index(['tenantId', 'runId', 'createdAt'])
export class AgentRunDeliveryEntity {
  /** The delivery id (the `X-Ops-Delivery` header and the body's `id`): the same on every attempt. */
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'uuid' })
  runId!: string;

  @ManyToOne(() => AgentRunEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: AgentRunEntity;

  @Column({ type: 'varchar', length: 40 })
  event!: RunWebhookEvent;

  @Column({ type: 'text' })
  url!: string;

  /** The JSON body, as the bytes signed and sent on every attempt. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attemptCount!: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attempts!: DeliveryAttempt[];

  @Column({ type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  claimedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
