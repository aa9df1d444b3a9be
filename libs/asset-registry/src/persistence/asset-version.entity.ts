import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { ToolDryRunOutcome } from '../asset-contents';
import type { AssetSnapshot, ToolContractReport } from '../asset.types';
import { AssetEntity } from './asset.entity';

/** One published version of an asset. Rows are never updated (a database trigger refuses it). */
@Entity('tb_asset_version_history')
@Unique('UQ_tb_asset_version_history_asset_version', ['assetId', 'version'])
@Index(['tenantId', 'assetId'])
export class AssetVersionEntity {
  @PrimaryGeneratedColumn('uuid')
  historyId!: string;

  @Column({ type: 'uuid' })
  assetId!: string;

  @ManyToOne(() => AssetEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'asset_id' })
  asset?: AssetEntity;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: object;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'jsonb' })
  snapshot!: AssetSnapshot;

  @Column({ type: 'varchar', length: 200, nullable: true })
  publishedBy!: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  publishedAt!: Date;

  @Column({ type: 'integer', nullable: true })
  rollbackFromVersion!: number | null;

  @Column({ type: 'text', nullable: true })
  note!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  contractCheck!: ToolContractReport | null;

  @Column({ type: 'jsonb', nullable: true })
  dryRun!: ToolDryRunOutcome | null;
}
