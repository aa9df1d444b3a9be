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
import type { JobError } from '@app/platform';
import { DocumentEntity } from './document.entity';

export type DocumentJobKind = 'ingest' | 'reembed';
export type DocumentJobResolution = 'retried' | 'replaced' | 'dismissed';
export type DocumentJobStatus =
  'queued' | 'running' | 'loaded' | 'done' | 'failed' | 'superseded' | 'cancelled';

@Entity('document_jobs')
@Check('CHK_document_jobs_kind', `"kind" IN ('ingest', 'reembed')`)
@Check(
  'CHK_document_jobs_status',
  `"status" IN ('queued', 'running', 'loaded', 'done', 'failed', 'superseded', 'cancelled')`,
)
@Check(
  'CHK_document_jobs_resolution',
  `"resolution" IS NULL OR "resolution" IN ('retried', 'replaced', 'dismissed')`,
)
@Check(
  'CHK_document_jobs_error',
  `("status" <> 'failed' OR "error" IS NOT NULL) AND ("error" IS NULL OR (jsonb_typeof("error") = 'object' AND "error" ? 'code'))`,
)
@Index(['status', 'runAfter'])
@Index(['documentId'])
@Index('UQ_document_jobs_pending_reembed', { synchronize: false })
@Index('IDX_document_jobs_dead_letter', { synchronize: false })
@Index('IDX_document_jobs_tenant_claimed', { synchronize: false })
export class DocumentJobEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: unknown;

  @Column({ type: 'uuid', nullable: true })
  documentId!: string | null;

  @ManyToOne(() => DocumentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'document_id' })
  document?: DocumentEntity;

  @Column({ type: 'varchar', length: 16 })
  kind!: DocumentJobKind;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status!: DocumentJobStatus;

  /** The document revision this job ingests (ingest jobs). */
  @Column({ type: 'integer', nullable: true })
  revision!: number | null;

  /** The submitted bytes, kept with the job so a restarted worker can redo it. */
  @Column({ type: 'bytea', nullable: true, select: false })
  content!: Buffer | null;

  /** Ingest through the bulk path (COPY, HNSW index built once after the batch; native server only). */
  @Column({ type: 'boolean', default: false })
  bulk!: boolean;

  /** The bulk segment a `loaded` job wrote its vectors in; it goes `done` once that segment is indexed. */
  @Column({ type: 'integer', nullable: true })
  bulkSegment!: number | null;

  /** The embedding model to backfill (reembed jobs). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  targetModel!: string | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ type: 'integer' })
  maxAttempts!: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  runAfter!: Date;

  @Column({ type: 'varchar', length: 100, nullable: true })
  lockedBy!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  heartbeatAt!: Date | null;

  /** When a worker last claimed it: the claim serves the tenant claimed longest ago first. */
  @Column({ type: 'timestamptz', nullable: true })
  claimedAt!: Date | null;

  /** The last attempt's error (a JobError: code, message, details); a failed job always has one. */
  @Column({ type: 'jsonb', nullable: true })
  error!: JobError | null;

  /** A failed job stays (with its bytes) until someone retries, replaces or dismisses it. */
  @Column({ type: 'timestamptz', nullable: true })
  resolvedAt!: Date | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  resolution!: DocumentJobResolution | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
