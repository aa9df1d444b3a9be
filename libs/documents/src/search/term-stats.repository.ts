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

  /**
   * The version switch of one document (`from` out, `to` in) as one net change: a term both versions
   * contain is not touched, so re-ingesting an edited document writes only the terms that changed.
   * Terms are upserted in lexeme order, like `apply`, so concurrent switches lock rows in one order.
   */
  async switchVersion(
    em: EntityManager,
    tenantId: string,
    documentId: string,
    from: number,
    to: number,
  ): Promise<void> {
    const params = [tenantId, documentId, from, to];
    await em.query(
      `UPDATE document_corpus SET
         chunk_count = chunk_count + (SELECT coalesce(sum(CASE WHEN c.chunk_version = $4 THEN 1 ELSE -1 END), 0)
           FROM document_chunks c WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version IN ($3, $4)),
         total_length = total_length + (SELECT coalesce(sum(CASE WHEN c.chunk_version = $4 THEN c.search_length
             ELSE -c.search_length END), 0)
           FROM document_chunks c WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version IN ($3, $4))
       WHERE tenant_id = $1`,
      params,
    );
    const [{ gone }]: Array<{ gone: string[] | null }> = await em.query(
      `WITH changed AS (
       INSERT INTO document_term_stats (tenant_id, term, df)
       SELECT $1, t.lexeme, t.delta FROM (
         SELECT u.lexeme, sum(CASE WHEN c.chunk_version = $4 THEN 1 ELSE -1 END) AS delta
         FROM document_chunks c CROSS JOIN LATERAL unnest(c.search_vector) u
         WHERE c.tenant_id = $1 AND c.document_id = $2 AND c.chunk_version IN ($3, $4)
         GROUP BY u.lexeme) t
       WHERE t.delta <> 0
       ORDER BY t.lexeme
       ON CONFLICT (tenant_id, term) DO UPDATE SET df = document_term_stats.df + EXCLUDED.df
       RETURNING term, df)
       SELECT array_agg(term) FILTER (WHERE df <= 0) AS gone FROM changed`,
      params,
    );
    if (gone) {
      await em.query(
        `DELETE FROM document_term_stats WHERE tenant_id = $1 AND term = ANY($2::text[]) AND df <= 0`,
        [tenantId, gone],
      );
    }
  }
}
