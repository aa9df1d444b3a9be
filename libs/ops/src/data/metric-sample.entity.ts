import { Entity, JoinColumn, ManyToOne, PrimaryColumn, Column } from 'typeorm';
import { TenantEntity } from '@app/platform';
import { ConfigurationItemEntity } from './configuration-item.entity';

/**
 * One metric value of one item at one time. `step_seconds` is the sample resolution (300: raw
 * 5-minute samples, 3600: hourly); range queries pick one resolution so averages are not skewed.
 * The primary key leads with (tenant, metric, step, time) because queries aggregate a time range of
 * one metric across items; it is the only index, which keeps bulk loads fast.
 */
@Entity('ops_metric_samples')
export class MetricSampleEntity {
  @PrimaryColumn({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  metricName!: string;

  @PrimaryColumn({ type: 'integer' })
  stepSeconds!: number;

  @PrimaryColumn({ type: 'timestamptz' })
  ts!: Date;

  @PrimaryColumn({ type: 'uuid' })
  ciId!: string;

  @ManyToOne(() => ConfigurationItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'ci_id' })
  ci?: ConfigurationItemEntity;

  @Column({ type: 'double precision' })
  value!: number;
}
