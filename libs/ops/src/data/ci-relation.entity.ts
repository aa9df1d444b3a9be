import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { TenantEntity } from '@app/platform';
import { ConfigurationItemEntity } from './configuration-item.entity';
import type { RelationType } from './ops-vocabulary';

/** A directed edge: `source` runs_on / depends_on / is part_of `target`. */
@Entity('ops_ci_relations')
@Unique('UQ_ops_ci_relations_edge', ['tenantId', 'sourceId', 'targetId', 'relationType'])
@Index(['tenantId', 'targetId'])
@Check('CHK_ops_ci_relations_type', `"relation_type" IN ('runs_on', 'depends_on', 'part_of')`)
export class CiRelationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: TenantEntity;

  @Column({ type: 'uuid' })
  sourceId!: string;

  @ManyToOne(() => ConfigurationItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id' })
  source?: ConfigurationItemEntity;

  @Column({ type: 'uuid' })
  targetId!: string;

  @ManyToOne(() => ConfigurationItemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_id' })
  target?: ConfigurationItemEntity;

  @Column({ type: 'varchar', length: 16 })
  relationType!: RelationType;
}
