import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BatchSizer } from '@app/platform';

/**
 * A version switch's net change to the BM25 statistics (`from` out, `to` in), read before the switch
 * in bounded statements (`TermStatsRepository.versionDelta`) and applied inside it
 * (`applyVersionDelta`): the switch then writes the statistics without reading every chunk.
 */
export interface VersionDelta {
  documentId: string;
  from: number;
  to: number;
  chunks: number;
  length: number;
  /** Terms whose document frequency changes, in lexeme order, and by how much. */
  terms: string[];
  deltas: number[];
}

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
  switchVersion(em: EntityManager, tenantId: string, documentId: string, from: number, to: number) {
    return this.switchVersions(em, tenantId, [{ documentId, from, to }]);
  }

  /**
   * `switchVersion` for several documents of one tenant at once (a bulk load's publish): each term is
   * counted over all of them and written once, instead of once per document.
   */
  async switchVersions(
    em: EntityManager,
    tenantId: string,
    switches: Array<{ documentId: string; from: number; to: number }>,
  ): Promise<void> {
    if (switches.length === 0) return;
    const params = [
      tenantId,
      switches.map((s) => s.documentId),
      switches.map((s) => s.from),
      switches.map((s) => s.to),
    ];
    const chunks = `unnest($2::uuid[], $3::int[], $4::int[]) AS s(document_id, from_version, to_version)
      JOIN document_chunks c ON c.tenant_id = $1 AND c.document_id = s.document_id
        AND c.chunk_version IN (s.from_version, s.to_version)`;
    await em.query(
      `UPDATE document_corpus SET
         chunk_count = chunk_count + t.chunks, total_length = total_length + t.length
       FROM (SELECT coalesce(sum(CASE WHEN c.chunk_version = s.to_version THEN 1 ELSE -1 END), 0) AS chunks,
                    coalesce(sum(CASE WHEN c.chunk_version = s.to_version THEN c.search_length
                                 ELSE -c.search_length END), 0) AS length
             FROM ${chunks}) t
       WHERE tenant_id = $1`,
      params,
    );
    const [{ gone }]: Array<{ gone: string[] | null }> = await em.query(
      `WITH changed AS (
       INSERT INTO document_term_stats (tenant_id, term, df)
       SELECT $1, t.lexeme, t.delta FROM (
         SELECT u.lexeme, sum(CASE WHEN c.chunk_version = s.to_version THEN 1 ELSE -1 END) AS delta
         FROM ${chunks} CROSS JOIN LATERAL unnest(c.search_vector) u
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

  /**
   * Reads the net change a switch from version `from` to `to` makes to the statistics, a slice of
   * chunk indexes per statement (sized by `sizer`), outside any transaction. Only valid while both
   * versions' chunks stay as they are: the job holding the document's lease writes `to`, and the
   * active version `from` changes only by a switch, which `applyVersionDelta`'s caller checks.
   */
  async versionDelta(
    dataSource: DataSource,
    tenantId: string,
    documentId: string,
    from: number,
    to: number,
    sizer: BatchSizer,
  ): Promise<VersionDelta> {
    const delta = new Map<string, number>();
    let chunks = 0;
    let length = 0;
    for (const [version, sign] of [
      [from, -1],
      [to, 1],
    ] as const) {
      if (version < 1) continue;
      const [{ last }]: Array<{ last: number | null }> = await dataSource.query(
        `SELECT max(chunk_index) AS last FROM document_chunks WHERE document_id = $1 AND chunk_version = $2`,
        [documentId, version],
      );
      for (let start = 0; last !== null && start <= last;) {
        const end = start + sizer.next;
        const rows: Array<{ lexeme: string | null; n: number; chunks: number; length: string }> =
          await sizer.run(sizer.next, () =>
            dataSource.query(
              `WITH slice AS (
                 SELECT search_vector, search_length FROM document_chunks
                 WHERE tenant_id = $1 AND document_id = $2 AND chunk_version = $3 AND chunk_index >= $4 AND chunk_index < $5)
               SELECT NULL AS lexeme, 0 AS n, count(*)::int AS chunks, coalesce(sum(search_length), 0)::bigint AS length FROM slice
               UNION ALL
               SELECT u.lexeme, count(*)::int, 0, 0 FROM slice CROSS JOIN LATERAL unnest(slice.search_vector) u GROUP BY u.lexeme`,
              [tenantId, documentId, version, start, end],
            ),
          );
        for (const row of rows) {
          if (row.lexeme === null) {
            chunks += sign * row.chunks;
            length += sign * Number(row.length);
          } else delta.set(row.lexeme, (delta.get(row.lexeme) ?? 0) + sign * row.n);
        }
        start = end;
      }
    }
    const changed = [...delta].filter(([, n]) => n !== 0).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return {
      documentId,
      from,
      to,
      chunks,
      length,
      terms: changed.map(([term]) => term),
      deltas: changed.map(([, n]) => n),
    };
  }

  /**
   * Applies a delta read by `versionDelta`, inside the switch transaction: the same statistics as
   * `switchVersion` computes there, written without reading the chunks again.
   */
  async applyVersionDelta(em: EntityManager, tenantId: string, delta: VersionDelta): Promise<void> {
    await em.query(
      `UPDATE document_corpus SET chunk_count = chunk_count + $2, total_length = total_length + $3 WHERE tenant_id = $1`,
      [tenantId, delta.chunks, delta.length],
    );
    if (delta.terms.length === 0) return;
    const [{ gone }]: Array<{ gone: string[] | null }> = await em.query(
      `WITH changed AS (
       INSERT INTO document_term_stats (tenant_id, term, df)
       SELECT $1, t.term, t.delta FROM unnest($2::text[], $3::int[]) AS t(term, delta)
       ORDER BY t.term
       ON CONFLICT (tenant_id, term) DO UPDATE SET df = document_term_stats.df + EXCLUDED.df
       RETURNING term, df)
       SELECT array_agg(term) FILTER (WHERE df <= 0) AS gone FROM changed`,
      [tenantId, delta.terms, delta.deltas],
    );
    if (gone) {
      await em.query(
        `DELETE FROM document_term_stats WHERE tenant_id = $1 AND term = ANY($2::text[]) AND df <= 0`,
        [tenantId, gone],
      );
    }
  }
}
