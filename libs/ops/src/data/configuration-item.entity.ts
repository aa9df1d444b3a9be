import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { TenantEntity } from '@app/platform';
import type { CiEnvironment, CiStatus, CiType } from './ops-vocabulary';

@Entity('ops_configuration_items')
@Unique('UQ_ops_configuration_items_tenant_name', ['tenantId', 'name'])
@Index(['tenantId', 'ciType', 'environment'])
@Check('CHK_ops_ci_environment', `"environment" IN ('prod', 'staging', 'dev')`)
export class ConfigurationItemEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 32 })
  ciType!: CiType;

  @Column({ type: 'varchar', length: 16 })
  environment!: CiEnvironment;

  @Column({ type: 'varchar', length: 16 })
  status!: CiStatus;

  @Column({ type: 'varchar', length: 200, nullable: true })
  owner!: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes!: Record<string, unknown>;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
