import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { BACKGROUND_STATEMENT_TARGET_MS, BatchSizer } from '@app/platform';
import type { ChunkDraft } from '../chunking/chunker.util';
import { toIndexText } from '../text/search-text.util';
import type { ChunkType, TableData } from '../documents.types';

export interface StoredChunkRef {
  id: string;
  chunkIndex: number;
  sourceHash: string;
  chunkType: ChunkType;
  pageNumber: number | null;
  slideNumber: number | null;
  models: string[];
}

/** A vector to store for one chunk and model. */
export interface ChunkVector {
  chunkId: string;
  vector: number[];
}

/** A chunk that takes its vector from any chunk of the tenant with the same text (source hash). */
export interface ChunkCopy {
  chunkId: string;
  sourceHash: string;
}

export interface ChunkRow {
  id: string;
  document_id: string;
  chunk_index: number;
  chunk_version: number;
  chunk_type: ChunkType;
  text: string;
  page_number: number | null;
  slide_number: number | null;
  position_in_doc: number;
  table_data: TableData | null;
  source_hash: string;
  embedding_models: string[] | null;
}

/**
 * pgvector's binary wire format (what `vector_recv` reads): int16 dimensions, int16 unused, then
 * float4 values, all big-endian. node-postgres sends a Buffer parameter in binary format, so a
 * `$n::vector` parameter skips the server's text parsing of ~1,000 decimal numbers per vector.
 */
export function toVectorBinary(vector: number[]): Buffer {
  const buffer = Buffer.allocUnsafe(4 + 4 * vector.length);
  buffer.writeInt16BE(vector.length, 0);
  buffer.writeInt16BE(0, 2);
  for (let i = 0; i < vector.length; i++) buffer.writeFloatBE(vector[i], 4 + 4 * i);
  return buffer;
}

/** Index names are identifiers: derive a safe, stable one from the model id. */
export function modelIndexName(model: string): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  return `IDX_chunk_embeddings_hnsw_${slug}_${createHash('sha256').update(model).digest('hex').slice(0, 8)}`;
}

/** pgvector's limit for an HNSW index over `halfvec` (the embedding indexes' storage). */
export const MAX_INDEX_DIMENSIONS = 4000;

export const sqlLiteral = (value: string): string => `'${value.replace(/'/g, "''")}'`;

@Injectable()
export class ChunksRepository {
  private readonly indexedModels = new Map<string, Promise<void>>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A partial HNSW index per model over `embedding::halfvec(D)` (half precision; searches re-rank by
   * the stored float4 vectors): one table holds every model's vectors, each model gets its own
   * correctly-typed cosine index. Idempotent, and safe when several
   * jobs (of this process or others) meet a new model at once: `CREATE INDEX IF NOT EXISTS` alone
   * can still fail on a unique violation in pg_class when two transactions create the same index.
   */
  ensureModelIndex(model: string, dimensions: number): Promise<void> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_INDEX_DIMENSIONS) {
      return Promise.reject(
        new Error(
          `HNSW indexes support 1-${MAX_INDEX_DIMENSIONS} dimensions; model ${model} has ${dimensions}`,
        ),
      );
    }
    let created = this.indexedModels.get(model);
    if (!created) {
      created = this.dataSource.transaction(async (em) => {
        await em.query(`SELECT pg_advisory_xact_lock(hashtext('chunk_embeddings_hnsw'), hashtext($1))`, [
          model,
        ]);
        // The application role does not own the table: the owner's function creates the index.
        await em.query(`SELECT ops_ensure_model_index($1, $2, $3)`, [
          modelIndexName(model),
          model,
          dimensions,
        ]);
      });
      this.indexedModels.set(model, created);
      created.catch(() => this.indexedModels.delete(model));
    }
    return created;
  }

  async atVersion(documentId: string, version: number): Promise<StoredChunkRef[]> {
    const rows: Array<{
      id: string;
      chunk_index: number;
      source_hash: string;
      chunk_type: ChunkType;
      page_number: number | null;
      slide_number: number | null;
      models: string[] | null;
    }> = await this.dataSource.query(
      `SELECT c.id, c.chunk_index, c.source_hash, c.chunk_type, c.page_number, c.slide_number,
              array_remove(array_agg(e.model), NULL) AS models
       FROM document_chunks c LEFT JOIN chunk_embeddings e ON e.chunk_id = c.id
       WHERE c.document_id = $1 AND c.chunk_version = $2
       GROUP BY c.id`,
      [documentId, version],
    );
    return rows.map((r) => ({
      id: r.id,
      chunkIndex: r.chunk_index,
      sourceHash: r.source_hash,
      chunkType: r.chunk_type,
      pageNumber: r.page_number,
      slideNumber: r.slide_number,
      models: r.models ?? [],
    }));
  }

  async deleteByIds(ids: string[]): Promise<void> {
    if (ids.length > 0)
      await this.dataSource.query(`DELETE FROM document_chunks WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** The hashes among `hashes` whose text already has a vector for `model` somewhere in the tenant. */
  async hashesWithVector(tenantId: string, hashes: string[], model: string): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows: Array<{ source_hash: string }> = await this.dataSource.query(
      `SELECT DISTINCT c.source_hash
       FROM document_chunks c JOIN chunk_embeddings e ON e.chunk_id = c.id AND e.model = $3
       WHERE c.tenant_id = $1 AND c.source_hash = ANY($2::text[])`,
      [tenantId, [...new Set(hashes)], model],
    );
    return new Set(rows.map((r) => r.source_hash));
  }

  /** Inserts chunks of one version in one statement; returns the new chunk ids in order. */
  async insertChunks(
    em: EntityManager,
    tenantId: string,
    documentId: string,
    version: number,
    drafts: ChunkDraft[],
  ): Promise<string[]> {
    if (drafts.length === 0) return [];
    return (await this.insert(em, tenantId, documentId, version, drafts, null))!;
  }

  /**
   * `insertChunks` as one statement of its own (embedded, outside a transaction): it also records the
   * job's progress (when the document is still at `revision`), and writes nothing when the document
   * is deleted. Returns the new chunk ids in order, or null when the document is no longer live.
   */
  async insertChunksIfLive(
    em: EntityManager,
    tenantId: string,
    documentId: string,
    version: number,
    drafts: ChunkDraft[],
    live: { revision: number; progress: number },
  ): Promise<string[] | null> {
    return this.insert(em, tenantId, documentId, version, drafts, live);
  }

  private async insert(
    em: EntityManager,
    tenantId: string,
    documentId: string,
    version: number,
    drafts: ChunkDraft[],
    live: { revision: number; progress: number } | null,
  ): Promise<string[] | null> {
    const params: unknown[] = [
      tenantId,
      documentId,
      version,
      drafts.map((d) => d.chunkIndex),
      drafts.map((d) => d.text),
      drafts.map((d) => d.chunkType),
      drafts.map((d) => d.pageNumber),
      drafts.map((d) => d.slideNumber),
      drafts.map((d) => d.positionInDoc),
      drafts.map((d) => (d.tableData ? JSON.stringify(d.tableData) : null)),
      drafts.map((d) => d.sourceHash),
      drafts.map((d) => toIndexText(d.text)),
    ];
    // The live check is the statement's own (the returned `live` row), so no request that runs between
    // two of a job's statements (a delete) can come between the check and the write.
    const guard = live
      ? `WITH live AS (
           UPDATE documents SET processing_progress = CASE WHEN revision = $14 THEN $13 ELSE processing_progress END
           WHERE id = $2 AND deleted_at IS NULL RETURNING id),
         inserted AS (`
      : '';
    if (live) params.push(live.progress, live.revision);
    const rows: Array<{ id: string | null; chunk_index: number | null }> = await em.query(
      `${guard}INSERT INTO document_chunks (tenant_id, document_id, chunk_version, chunk_index, text, chunk_type,
         page_number, slide_number, position_in_doc, table_data, source_hash, search_vector, search_length)
       SELECT $1, $2, $3, d.chunk_index, d.text, d.chunk_type, d.page_number, d.slide_number, d.position_in_doc,
              d.table_data::jsonb, d.source_hash, v.tsv,
              (SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(v.tsv) u)
       FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[], $10::text[], $11::text[],
                   $12::text[]) AS d(chunk_index, text, chunk_type, page_number, slide_number, position_in_doc,
                                     table_data, source_hash, index_text)
       CROSS JOIN LATERAL (SELECT to_tsvector('english', d.index_text) AS tsv) v
       ${live ? 'WHERE EXISTS (SELECT 1 FROM live)' : ''}
       RETURNING id, chunk_index${
         live
           ? `)
       SELECT i.id, i.chunk_index FROM inserted i
       UNION ALL SELECT NULL, NULL FROM live`
           : ''
       }`,
      params,
    );
    // With the guard, one row without an id says the document was live.
    if (live && !rows.some((r) => r.id === null)) return null;
    const idByIndex = new Map(rows.filter((r) => r.id !== null).map((r) => [r.chunk_index, r.id!]));
    return drafts.map((d) => idByIndex.get(d.chunkIndex)!);
  }

  /** Stores vectors of one model in one statement, each vector a binary parameter. */
  async insertVectors(em: EntityManager, tenantId: string, model: string, vectors: ChunkVector[]) {
    if (vectors.length === 0) return;
    const params: unknown[] = [tenantId, model];
    const rows = vectors.map((v) => {
      params.push(v.chunkId, toVectorBinary(v.vector));
      return `($${params.length - 1}::uuid, $${params.length}::vector)`;
    });
    // Joined to the chunks: a vector whose chunk a delete removed meanwhile (embedded, where a job's
    // statements are not one transaction) is skipped instead of failing on the foreign key.
    await em.query(
      `INSERT INTO chunk_embeddings (chunk_id, tenant_id, model, embedding)
       SELECT v.chunk_id, $1, $2, v.embedding FROM (VALUES ${rows.join(', ')}) AS v(chunk_id, embedding)
       WHERE EXISTS (SELECT 1 FROM document_chunks c WHERE c.id = v.chunk_id)
       ON CONFLICT (chunk_id, model) DO NOTHING`,
      params,
    );
  }

  /**
   * Gives each chunk the `model` vector of a chunk of the tenant with the same source hash, in SQL.
   * Returns the chunks that got none (their source was deleted meanwhile): the caller embeds those.
   */
  async copyVectorsByHash(
    em: EntityManager,
    tenantId: string,
    model: string,
    copies: ChunkCopy[],
  ): Promise<ChunkCopy[]> {
    if (copies.length === 0) return [];
    const rows: Array<{ chunk_id: string }> = await em.query(
      `INSERT INTO chunk_embeddings (chunk_id, tenant_id, model, embedding)
       SELECT t.chunk_id, $1, $2, src.embedding
       FROM unnest($3::uuid[], $4::text[]) AS t(chunk_id, source_hash)
       CROSS JOIN LATERAL (
         SELECT e.embedding FROM document_chunks o
         JOIN chunk_embeddings e ON e.chunk_id = o.id AND e.model = $2
         WHERE o.tenant_id = $1 AND o.source_hash = t.source_hash LIMIT 1) src
       WHERE EXISTS (SELECT 1 FROM document_chunks target WHERE target.id = t.chunk_id)
       ON CONFLICT (chunk_id, model) DO NOTHING
       RETURNING chunk_id`,
      [tenantId, model, copies.map((c) => c.chunkId), copies.map((c) => c.sourceHash)],
    );
    const copied = new Set(rows.map((r) => r.chunk_id));
    return copies.filter((c) => !copied.has(c.chunkId));
  }

  /** Active chunks of live documents that have no vector for `model` yet (the re-embed backlog). */
  async missingModel(
    tenantId: string,
    model: string,
    limit: number,
  ): Promise<Array<{ id: string; text: string; sourceHash: string }>> {
    const rows: Array<{ id: string; text: string; source_hash: string }> = await this.dataSource.query(
      `SELECT c.id, c.text, c.source_hash
       FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       WHERE c.tenant_id = $1 AND d.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = $2)
       ORDER BY c.id LIMIT $3`,
      [tenantId, model, limit],
    );
    return rows.map((r) => ({ id: r.id, text: r.text, sourceHash: r.source_hash }));
  }

  async countMissingModel(em: EntityManager, tenantId: string, model: string): Promise<number> {
    const [row]: Array<{ count: string }> = await em.query(
      `SELECT count(*) AS count
       FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       WHERE c.tenant_id = $1 AND d.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = $2)`,
      [tenantId, model],
    );
    return Number(row.count);
  }

  /** Drops vectors of models a tenant no longer serves. */
  async deleteEmbeddingsExcept(tenantId: string, keep: string[]): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM chunk_embeddings WHERE tenant_id = $1 AND model <> ALL($2::text[])`,
      [tenantId, keep],
    );
    return count;
  }

  deleteOtherVersions(em: EntityManager, documentId: string, keepVersion: number): Promise<void> {
    return this.deleteOtherVersionsOf(em, [{ documentId, version: keepVersion }]);
  }

  /** `deleteOtherVersions` for several documents in one statement (a bulk load's publish). */
  async deleteOtherVersionsOf(
    em: EntityManager,
    keep: Array<{ documentId: string; version: number }>,
  ): Promise<void> {
    if (keep.length === 0) return;
    await em.query(
      `DELETE FROM document_chunks c USING unnest($1::uuid[], $2::int[]) AS k(document_id, version)
       WHERE c.document_id = k.document_id AND c.chunk_version <> k.version`,
      [keep.map((k) => k.documentId), keep.map((k) => k.version)],
    );
  }

  /**
   * The chunks (and vectors) of a document's versions below `version`, after it switched to `version`:
   * invisible to every reader since, so they go in bounded statements of about
   * BACKGROUND_STATEMENT_TARGET_MS, each its own transaction. Versions above are left alone: a job
   * for a newer revision may be writing there.
   */
  async deleteVersionsBelow(documentId: string, version: number): Promise<number> {
    const sizer = new BatchSizer(256, { targetMs: BACKGROUND_STATEMENT_TARGET_MS, min: 64, max: 4096 });
    let deleted = 0;
    for (;;) {
      const size = sizer.next;
      // TypeORM answers a DELETE with [rows, affected].
      const [, affected] = await sizer.run(size, () =>
        this.dataSource.query<[unknown[], number]>(
          `DELETE FROM document_chunks WHERE id IN (
             SELECT id FROM document_chunks WHERE document_id = $1 AND chunk_version < $2 LIMIT $3)`,
          [documentId, version, size],
        ),
      );
      deleted += affected;
      if (affected < size) return deleted;
    }
  }

  /** Chunks an unfinished job wrote at a version the document never switched to. */
  async deleteUnactivated(em: EntityManager, documentId: string, activeVersion: number): Promise<void> {
    await em.query(`DELETE FROM document_chunks WHERE document_id = $1 AND chunk_version > $2`, [
      documentId,
      activeVersion,
    ]);
  }

  /**
   * Drops a deleted document's vectors at once (its chunk rows stay for restore until the purge):
   * left in the HNSW index they are nearest neighbours every search must fetch and filter out.
   */
  async deleteEmbeddingsOfDocument(em: EntityManager, documentId: string): Promise<void> {
    await em.query(
      `DELETE FROM chunk_embeddings e USING document_chunks c WHERE c.id = e.chunk_id AND c.document_id = $1`,
      [documentId],
    );
  }

  async listActive(tenantId: string, documentId: string, limit: number, offset: number) {
    const rows: ChunkRow[] = await this.dataSource.query(
      `SELECT c.id, c.document_id, c.chunk_index, c.chunk_version, c.chunk_type, c.text, c.page_number, c.slide_number,
              c.position_in_doc, c.table_data, c.source_hash,
              (SELECT array_agg(e.model ORDER BY e.model) FROM chunk_embeddings e WHERE e.chunk_id = c.id) AS embedding_models
       FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       WHERE c.tenant_id = $1 AND d.tenant_id = $1 AND c.document_id = $2
       ORDER BY c.chunk_index LIMIT $3 OFFSET $4`,
      [tenantId, documentId, limit, offset],
    );
    const [{ count }]: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       WHERE c.tenant_id = $1 AND c.document_id = $2`,
      [tenantId, documentId],
    );
    return { rows, total: Number(count) };
  }
}
