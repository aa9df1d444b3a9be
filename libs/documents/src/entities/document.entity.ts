import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type {
  DocumentErrorDetails,
  DocumentFormat,
  DocumentMetadata,
  DocumentStatus,
} from '../documents.types';

@Entity('documents')
@Check('CHK_documents_status', `"status" IN ('queued', 'processing', 'done', 'failed')`)
@Index(['tenantId', 'createdAt'])
@Index(['tenantId', 'status'])
@Index(['tenantId', 'filename'])
export class DocumentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: unknown;

  @Column({ type: 'varchar', length: 200 })
  userId!: string;

  @Column({ type: 'varchar', length: 500 })
  filename!: string;

  @Column({ type: 'varchar', length: 200 })
  contentType!: string;

  @Column({ type: 'varchar', length: 16 })
  format!: DocumentFormat;

  @Column({ type: 'integer' })
  size!: number;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status!: DocumentStatus;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  docMetadata!: DocumentMetadata;

  @Column({ type: 'integer', default: 0 })
  processingProgress!: number;

  @Column({ type: 'integer', default: 0 })
  totalChunks!: number;

  @Column({ type: 'jsonb', nullable: true })
  errorDetails!: DocumentErrorDetails | null;

  /** Manual retries of a failed ingestion (POST /api/documents/:id/retry). */
  @Column({ type: 'integer', default: 0 })
  retryCount!: number;

  /** sha256 of the latest submitted content. */
  @Column({ type: 'char', length: 64 })
  sourceHash!: string;

  /** Bumped by every content submission; a job for an older revision is superseded. */
  @Column({ type: 'integer', default: 1 })
  revision!: number;

  /** The chunk_version search serves; switched in one transaction when a new version is complete. */
  @Column({ type: 'integer', default: 0 })
  activeVersion!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
