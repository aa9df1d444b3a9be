import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantEntity } from '@app/platform';

export type DemoLoadState = 'loading' | 'ready' | 'failed';

/** Whether a tenant's demo dataset is loaded: one row per tenant, updated as loading progresses. */
@Entity('ops_demo_loads')
export class DemoLoadEntity {
  @PrimaryColumn({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 16 })
  state!: DemoLoadState;

  @Column({ type: 'varchar', length: 16 })
  scale!: string;

  @Column({ type: 'integer' })
  datasetVersion!: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  phase!: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  counts!: Record<string, number>;

  /** 0-100 while loading (units of work done: phases and metric chunks), 100 when ready. */
  @Column({ type: 'smallint', default: 0 })
  progressPercent!: number;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'timestamptz' })
  startedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
