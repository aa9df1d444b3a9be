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
} from 'typeorm';
import type { ChunkType, TableData } from '../documents.types';
import { DocumentEntity } from './document.entity';

@Entity('document_chunks')
@Check('CHK_document_chunks_type', `"chunk_type" IN ('text', 'table', 'image', 'mixed')`)
@Unique('UQ_document_chunks_version_index', ['documentId', 'chunkVersion', 'chunkIndex'])
@Index(['tenantId', 'documentId'])
@Index(['tenantId', 'sourceHash'])
@Index('IDX_document_chunks_search_vector', { synchronize: false })
export class DocumentChunkEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: unknown;

  @Column({ type: 'uuid' })
  documentId!: string;

  @ManyToOne(() => DocumentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'document_id' })
  document?: DocumentEntity;

  @Column({ type: 'integer' })
  chunkVersion!: number;

  @Column({ type: 'integer' })
  chunkIndex!: number;

  @Column({ type: 'text' })
  text!: string;

  @Column({ type: 'varchar', length: 8 })
  chunkType!: ChunkType;

  @Column({ type: 'integer', nullable: true })
  pageNumber!: number | null;

  @Column({ type: 'integer', nullable: true })
  slideNumber!: number | null;

  @Column({ type: 'integer' })
  positionInDoc!: number;

  @Column({ type: 'jsonb', nullable: true })
  tableData!: TableData | null;

  @Column({ type: 'char', length: 64 })
  sourceHash!: string;

  /** Built at write time from app-normalised text (Hangul bigrams added); never computed at query time. */
  @Column({ type: 'tsvector', select: false })
  searchVector!: string;

  /** Tokens in the search vector (positions, stop words excluded): BM25's document length. */
  @Column({ type: 'integer', default: 0 })
  searchLength!: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
