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
import type { AssetType } from '../types/asset-type.registry';
import type { AssetStatus } from '../asset.types';

/**
 * The working copy of an asset (what admins edit) plus a pointer to the version now serving. The
 * serving content itself lives, immutable, in `tb_asset_version_history`.
 */
@Entity('tb_asset_registry')
@Unique('UQ_tb_asset_registry_tenant_type_name', ['tenantId', 'assetType', 'name'])
// The types themselves are registered by the libs that own them (AssetTypeRegistry); the table keeps a name's shape.
@Check('CHK_tb_asset_registry_type', `"asset_type" ~ '^[a-z][a-z0-9_]{0,31}$'`)
@Check('CHK_tb_asset_registry_status', `"status" IN ('draft', 'published', 'archived')`)
@Index(['tenantId', 'assetType', 'status'])
export class AssetEntity {
  @PrimaryGeneratedColumn('uuid')
  assetId!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: object;

  @Column({ type: 'varchar', length: 32 })
  assetType!: AssetType;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** The latest published version number; 0 until the first publish. */
  @Column({ type: 'integer', default: 0 })
  version!: number;

  @Column({ type: 'integer', nullable: true })
  publishedVersion!: number | null;

  @Column({ type: 'varchar', length: 16, default: 'draft' })
  status!: AssetStatus;

  /** Bumped on every write, so a publish can tell whether the draft it checked is still the draft. */
  @Column({ type: 'integer', default: 1 })
  revision!: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  tags!: string[];

  @Column({ type: 'text', nullable: true })
  querySql!: string | null;

  @Column({ type: 'text', nullable: true })
  queryCypher!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  queryHttp!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  queryParams!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  queryMetadata!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  toolType!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  toolConfig!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  toolInputSchema!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  toolOutputSchema!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  sampleInput!: Record<string, unknown> | null;

  @Column({ type: 'boolean', nullable: true })
  hasSideEffects!: boolean | null;

  /** tool and query assets: the data source the tool reads (`internal` or a published source asset). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  sourceRef!: string | null;

  /** tool assets: hints for the planner (examples, keywords, not_for). */
  @Column({ type: 'jsonb', nullable: true })
  planningHints!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  scope!: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  engine!: string | null;

  @Column({ type: 'text', nullable: true })
  template!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  inputSchema!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  outputContract!: Record<string, unknown> | null;

  /** Catalog, mapping, policy, source, resolver and screen assets keep their content here. */
  @Column({ type: 'jsonb', nullable: true })
  content!: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'varchar', length: 200, nullable: true })
  createdBy!: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  updatedBy!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  publishedBy!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  archivedAt!: Date | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  archivedBy!: string | null;
}
