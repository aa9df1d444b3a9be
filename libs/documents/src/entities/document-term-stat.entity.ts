import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/**
 * Per-tenant document frequency of each keyword-index lexeme over the chunks search can return
 * (active version of live documents). With `document_corpus.chunk_count/total_length` it gives
 * the keyword branch BM25's IDF and length normalisation without scanning the corpus per query.
 */
@Entity('document_term_stats')
export class DocumentTermStatEntity {
  @PrimaryColumn({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id' })
  tenant?: unknown;

  @PrimaryColumn({ type: 'text' })
  term!: string;

  @Column({ type: 'integer' })
  df!: number;
}
