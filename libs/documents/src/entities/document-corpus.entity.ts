import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * Per-tenant corpus state. `generation` is bumped in the same transaction as any change to what
 * search can return, so cache keys that embed it can never serve a stale answer, even after a cache
 * flush. `activeModel` is the embedding model search queries; it moves only once every active
 * chunk has a vector for the new model.
 */
@Entity('document_corpus')
export class DocumentCorpusEntity {
  @PrimaryColumn({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: unknown;

  @Column({ type: 'integer', default: 0 })
  generation!: number;

  @Column({ type: 'varchar', length: 200, nullable: true })
  activeModel!: string | null;

  /** Searchable chunks (active version of live documents): BM25's N. */
  @Column({ type: 'integer', default: 0 })
  chunkCount!: number;

  /** Sum of their keyword lengths (tokens after stop words): BM25's average length. */
  @Column({ type: 'bigint', default: 0 })
  totalLength!: string;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
