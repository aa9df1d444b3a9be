import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * HNSW parameters of every embedding index, from the recall/latency sweep (BENCHMARKS.md "Vector
 * branch: recall against exact search"). Searches re-rank the index's candidates by the stored
 * float4 vectors (SearchRepository), so the half-precision index costs no ranking precision.
 */
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;

/** The index definition of a model's vectors: half precision, cosine, the sweep's parameters. */
const HALFVEC_INDEX = `USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops) WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`;
const VECTOR_INDEX = `USING hnsw ((embedding::vector(%s)) vector_cosine_ops)`;

/**
 * The three owner functions that create embedding indexes (a model's first index, a bulk load's
 * bounded index, the build that seals a bulk segment), with `definition` as the access method part.
 */
function indexFunctions(definition: string, maxDimensions: number): string[] {
  const dimensionCheck = `IF dimensions IS NULL OR dimensions < 1 OR dimensions > ${maxDimensions} THEN
           RAISE EXCEPTION 'HNSW indexes support 1-${maxDimensions} dimensions, got %', dimensions;
         END IF;`;
  return [
    `CREATE OR REPLACE FUNCTION ops_ensure_model_index(index_name text, model text, dimensions integer)
       RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       BEGIN
         IF index_name !~ '^IDX_chunk_embeddings_hnsw_[a-z0-9_]{0,30}_[0-9a-f]{8}$' THEN
           RAISE EXCEPTION 'invalid index name %', index_name;
         END IF;
         ${dimensionCheck}
         IF EXISTS (SELECT 1 FROM chunk_embedding_segments s WHERE s.model = ops_ensure_model_index.model) THEN
           RETURN;
         END IF;
         EXECUTE format(
           'CREATE INDEX IF NOT EXISTS %I ON chunk_embeddings ${definition} WHERE model = %L',
           index_name, dimensions, model);
       END $fn$`,
    `CREATE OR REPLACE FUNCTION ops_bulk_open_segment(unbounded_index text, model text, dimensions integer,
                                                      work_mem text, workers integer)
       RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       DECLARE
         current chunk_embedding_segments%ROWTYPE;
         prefix text := 'IDX_chunk_emb_seg_' || left(md5(model), 12) || '_';
       BEGIN
         IF unbounded_index !~ '^IDX_chunk_embeddings_hnsw_[a-z0-9_]{0,30}_[0-9a-f]{8}$' THEN
           RAISE EXCEPTION 'invalid index name %', unbounded_index;
         END IF;
         ${dimensionCheck}
         PERFORM pg_advisory_xact_lock(hashtext('chunk_embeddings_bulk'), hashtext(model));
         SELECT * INTO current FROM chunk_embedding_segments s WHERE s.model = ops_bulk_open_segment.model;
         IF FOUND AND current.loading_segment IS NOT NULL THEN
           RETURN current.loading_segment;
         END IF;
         IF FOUND THEN
           UPDATE chunk_embedding_segments s SET loading_segment = current.serving_bound, updated_at = now()
           WHERE s.model = ops_bulk_open_segment.model;
           RETURN current.serving_bound;
         END IF;
         PERFORM ops_bulk_build_settings(work_mem, workers);
         EXECUTE format(
           'CREATE INDEX %I ON chunk_embeddings ${definition} WHERE model = %L AND segment < 1',
           prefix || '1', dimensions, model);
         EXECUTE format('DROP INDEX IF EXISTS %I', unbounded_index);
         INSERT INTO chunk_embedding_segments (model, serving_bound, loading_segment) VALUES (model, 1, 1);
         RETURN 1;
       END $fn$`,
    `CREATE OR REPLACE FUNCTION ops_bulk_seal_segment(model text, dimensions integer, segment integer,
                                                      work_mem text, workers integer)
       RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       DECLARE
         current chunk_embedding_segments%ROWTYPE;
         prefix text := 'IDX_chunk_emb_seg_' || left(md5(model), 12) || '_';
       BEGIN
         ${dimensionCheck}
         PERFORM pg_advisory_xact_lock(hashtext('chunk_embeddings_bulk'), hashtext(model));
         SELECT * INTO current FROM chunk_embedding_segments s WHERE s.model = ops_bulk_seal_segment.model;
         IF NOT FOUND OR current.loading_segment IS DISTINCT FROM segment THEN
           RETURN false;
         END IF;
         PERFORM ops_bulk_build_settings(work_mem, workers);
         EXECUTE format('DROP INDEX IF EXISTS %I', prefix || (segment + 1)::text);
         EXECUTE format(
           'CREATE INDEX %I ON chunk_embeddings ${definition} WHERE model = %L AND segment < %s',
           prefix || (segment + 1)::text, dimensions, model, segment + 1);
         EXECUTE format('DROP INDEX IF EXISTS %I', prefix || current.serving_bound::text);
         UPDATE chunk_embedding_segments s SET serving_bound = segment + 1, loading_segment = NULL, updated_at = now()
         WHERE s.model = ops_bulk_seal_segment.model;
         RETURN true;
       END $fn$`,
  ];
}

/**
 * Rebuilds every existing embedding index of `from` storage as `to` (same name, same partial
 * predicate, so the bulk bookkeeping and the index-name checks still hold): the new index is built
 * under a temporary name, then the old one is dropped and the new one takes its name, in the
 * migration's transaction. The vectors themselves are not touched (the table keeps float4).
 */
function reindexSql(from: RegExp, to: string): string {
  return `DO $do$
    DECLARE
      idx record;
      definition text;
    BEGIN
      PERFORM set_config('maintenance_work_mem', '256MB', true);
      FOR idx IN
        SELECT i.indexrelid::regclass::text AS name, c.relname AS plain, pg_get_indexdef(i.indexrelid) AS def
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'chunk_embeddings'::regclass AND pg_get_indexdef(i.indexrelid) ~ ${quote(from.source)}
      LOOP
        definition := regexp_replace(idx.def, ${quote(from.source)}, ${quote(to)});
        definition := regexp_replace(definition, '^CREATE INDEX \\S+ ON', 'CREATE INDEX ops_embedding_index_rebuild ON');
        EXECUTE definition;
        EXECUTE format('DROP INDEX %s', idx.name);
        EXECUTE format('ALTER INDEX ops_embedding_index_rebuild RENAME TO %I', idx.plain);
      END LOOP;
    END $do$`;
}

/** The embedded database connects over its socket, without a URL (as SearchRepository tells them apart). */
const embedded = (queryRunner: QueryRunner) => !(queryRunner.connection.options as { url?: string }).url;

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The migration's statements, in order (also run by test/medium/documents/vector-index.spec.ts).
 * Native PostgreSQL only: PGlite's pgvector is WebAssembly, without the CPU's half-float conversion,
 * and built a half-precision index several times slower than a float4 one (BENCHMARKS.md), so the
 * embedded database keeps float4 indexes (and SearchRepository their expression).
 */
export function halfvecIndexesUp(embedded = false): string[] {
  if (embedded) return [];
  return [
    ...indexFunctions(HALFVEC_INDEX, 4000),
    reindexSql(
      /\(\(embedding\)::vector\(([0-9]+)\)\) vector_cosine_ops\)/,
      `((embedding)::halfvec(\\1)) halfvec_cosine_ops) WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`,
    ),
  ];
}

export function halfvecIndexesDown(embedded = false): string[] {
  if (embedded) return [];
  return [
    ...indexFunctions(VECTOR_INDEX, 2000),
    reindexSql(
      /\(\(embedding\)::halfvec\(([0-9]+)\)\) halfvec_cosine_ops\) WITH \([^)]*\)/,
      `((embedding)::vector(\\1)) vector_cosine_ops)`,
    ),
  ];
}

/**
 * Embedding indexes in half precision on native PostgreSQL (issue 28; PGlite keeps float4, see
 * halfvecIndexesUp): `halfvec` halves what an HNSW element stores per
 * dimension (2 bytes instead of 4), so twice as many vectors fit in a page and a search reads half
 * the buffers; the sweep's `m` and `ef_construction`; up to 4,000 dimensions (vector: 2,000).
 * Existing indexes are rebuilt in place; `down` rebuilds them as float4 `vector` indexes (and fails
 * for a model above 2,000 dimensions, which a float4 HNSW index cannot hold).
 */
export class HalfvecEmbeddingIndexes1796300000000 implements MigrationInterface {
  name = 'HalfvecEmbeddingIndexes1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of halfvecIndexesUp(embedded(queryRunner))) await queryRunner.query(sql);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of halfvecIndexesDown(embedded(queryRunner))) await queryRunner.query(sql);
  }
}
