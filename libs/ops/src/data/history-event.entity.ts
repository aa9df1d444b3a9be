import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { TenantEntity } from '@app/platform';
import { ConfigurationItemEntity } from './configuration-item.entity';
import type { EventKind, EventSeverity } from './ops-vocabulary';

/** Something that happened to an item: a change, an incident, a deployment, maintenance, an alert. */
@Entity('ops_history_events')
@Index(['tenantId', 'occurredAt'])
@Index(['tenantId', 'ciId', 'occurredAt'])
@Unique('UQ_ops_history_events_tenant_external', ['tenantId', 'externalId'])
export class HistoryEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'uuid', nullable: true })
  ciId!: string | null;

  @ManyToOne(() => ConfigurationItemEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'ci_id' })
  ci?: ConfigurationItemEntity;

  @Column({ type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ type: 'varchar', length: 16 })
  kind!: EventKind;

  @Column({ type: 'varchar', length: 16 })
  severity!: EventSeverity;

  @Column({ type: 'varchar', length: 300 })
  title!: string;

  @Column({ type: 'text', nullable: true })
  details!: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes!: Record<string, unknown>;

  /** The id in the system the event came from (ticketing, CI/CD); makes imports idempotent. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  externalId!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
