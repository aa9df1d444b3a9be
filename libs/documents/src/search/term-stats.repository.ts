import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * Keeps BM25 statistics equal to the searchable set: active-version chunks of live documents.
 * Called inside the transaction that changes that set (a version switch, delete, restore), so the
 * statistics commit or roll back with it. The corpus row is updated first: it locks the tenant's
 * statistics, so concurrent changes of one tenant apply one after another instead of deadlocking.
 */
@Injectable()
export class TermStatsRepository {
  async apply(
    em: EntityManager,
    tenantId: string,
    documentId: string,
    version: number,
    sign: 1 | -1,
  ): Promise<void> {
    if (version < 1) return;
    const params = [tenantId, documentId, version, sign];
    await em.query(
      `UPDATE document_corpus SET
         chunk_count = chunk_count + $4 * (SELECT count(*) FROM document_chunks c
           WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version = $3),
         total_length = total_length + $4 * (SELECT coalesce(sum(c.search_length), 0) FROM document_chunks c
           WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version = $3)
       WHERE tenant_id = $1`,
      params,
    );
    await em.query(
      `INSERT INTO document_term_stats (tenant_id, term, df)
       SELECT $1, u.lexeme, $4 * count(*)
       FROM document_chunks c CROSS JOIN LATERAL unnest(c.search_vector) u
       WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version = $3
       GROUP BY u.lexeme ORDER BY u.lexeme
       ON CONFLICT (tenant_id, term) DO UPDATE SET df = document_term_stats.df + EXCLUDED.df`,
      params,
    );
    if (sign < 0) {
      await em.query(
        `DELETE FROM document_term_stats s
         WHERE s.tenant_id = $1 AND s.df <= 0 AND s.term IN (
           SELECT u.lexeme FROM document_chunks c CROSS JOIN LATERAL unnest(c.search_vector) u
           WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version = $3)`,
        params.slice(0, 3),
      );
    }
  }
}
