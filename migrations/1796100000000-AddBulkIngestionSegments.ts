import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';
import { SYSTEM_ROLE } from './1795800000000-SeparateSystemAndSqlToolRoles';

const BULK_FUNCTIONS = [
  'ops_bulk_open_segment(text, text, integer, text, integer)',
  'ops_bulk_seal_segment(text, integer, integer, text, integer)',
];

/**
 * Bulk ingestion without HNSW maintenance (ARCHITECTURE.md "Bulk ingestion"). Every vector carries a
 * `segment`: 0 on the normal path, the open bulk segment on the bulk path. Once a model has had a
 * bulk load, its serving HNSW index is bounded (`WHERE model = X AND segment < serving_bound`) and
 * searches say the same bound, so a bulk load writes its vectors outside the index that serves; when
 * the load is complete one build covers them (`segment < bound + 1`) and replaces the old index in the
 * same transaction. The two SECURITY DEFINER functions are the only writers of
 * `chunk_embedding_segments` (the application role does not own the table or its indexes).
 */
export class AddBulkIngestionSegments1796100000000 implements MigrationInterface {
  name = 'AddBulkIngestionSegments1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "chunk_embeddings" ADD "segment" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "document_jobs" ADD "bulk" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "document_jobs" ADD "bulk_segment" integer`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP CONSTRAINT "CHK_document_jobs_status"`);
    await queryRunner.query(
      `ALTER TABLE "document_jobs" ADD CONSTRAINT "CHK_document_jobs_status" CHECK ("status" IN ('queued', 'running', 'loaded', 'done', 'failed', 'superseded', 'cancelled'))`,
    );
    await queryRunner.query(
      `CREATE TABLE chunk_embedding_segments (
         model varchar(200) PRIMARY KEY,
         serving_bound integer NOT NULL,
         loading_segment integer,
         updated_at timestamptz NOT NULL DEFAULT now())`,
    );
    await queryRunner.query(`REVOKE ALL ON TABLE chunk_embedding_segments FROM PUBLIC`);
    for (const role of [APP_ROLE, SYSTEM_ROLE]) {
      await queryRunner.query(`REVOKE ALL ON TABLE chunk_embedding_segments FROM ${role}`);
      await queryRunner.query(`GRANT SELECT ON TABLE chunk_embedding_segments TO ${role}`);
    }
    // A model whose index has gone bounded keeps no unbounded index: never recreate it.
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ops_ensure_model_index(index_name text, model text, dimensions integer)
       RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       BEGIN
         IF index_name !~ '^IDX_chunk_embeddings_hnsw_[a-z0-9_]{0,30}_[0-9a-f]{8}$' THEN
           RAISE EXCEPTION 'invalid index name %', index_name;
         END IF;
         IF dimensions IS NULL OR dimensions < 1 OR dimensions > 2000 THEN
           RAISE EXCEPTION 'HNSW indexes support 1-2000 dimensions, got %', dimensions;
         END IF;
         IF EXISTS (SELECT 1 FROM chunk_embedding_segments s WHERE s.model = ops_ensure_model_index.model) THEN
           RETURN;
         END IF;
         EXECUTE format(
           'CREATE INDEX IF NOT EXISTS %I ON chunk_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L',
           index_name, dimensions, model);
       END $fn$`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ops_bulk_build_settings(work_mem text, workers integer)
       RETURNS void LANGUAGE plpgsql SET search_path = public, pg_catalog AS $fn$
       BEGIN
         IF work_mem !~ '^[0-9]{1,6}(kB|MB|GB)$' THEN RAISE EXCEPTION 'invalid maintenance_work_mem %', work_mem; END IF;
         IF workers IS NULL OR workers < 0 OR workers > 64 THEN RAISE EXCEPTION 'invalid worker count %', workers; END IF;
         PERFORM set_config('maintenance_work_mem', work_mem, true);
         PERFORM set_config('max_parallel_maintenance_workers', workers::text, true);
       END $fn$`,
    );
    // Opens (or joins) the model's bulk segment and returns it. The first bulk load of a model
    // replaces its unbounded index by one bounded below segment 1 (a build, searches keep reading).
    await queryRunner.query(
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
         IF dimensions IS NULL OR dimensions < 1 OR dimensions > 2000 THEN
           RAISE EXCEPTION 'HNSW indexes support 1-2000 dimensions, got %', dimensions;
         END IF;
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
           'CREATE INDEX %I ON chunk_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L AND segment < 1',
           prefix || '1', dimensions, model);
         EXECUTE format('DROP INDEX IF EXISTS %I', unbounded_index);
         INSERT INTO chunk_embedding_segments (model, serving_bound, loading_segment) VALUES (model, 1, 1);
         RETURN 1;
       END $fn$`,
    );
    // Seals the loading segment: one build covering it, then the old index goes, in one transaction
    // (a crash mid-build leaves no index behind: the transaction rolls back). False when not loading.
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ops_bulk_seal_segment(model text, dimensions integer, segment integer,
                                                        work_mem text, workers integer)
       RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
       DECLARE
         current chunk_embedding_segments%ROWTYPE;
         prefix text := 'IDX_chunk_emb_seg_' || left(md5(model), 12) || '_';
       BEGIN
         IF dimensions IS NULL OR dimensions < 1 OR dimensions > 2000 THEN
           RAISE EXCEPTION 'HNSW indexes support 1-2000 dimensions, got %', dimensions;
         END IF;
         PERFORM pg_advisory_xact_lock(hashtext('chunk_embeddings_bulk'), hashtext(model));
         SELECT * INTO current FROM chunk_embedding_segments s WHERE s.model = ops_bulk_seal_segment.model;
         IF NOT FOUND OR current.loading_segment IS DISTINCT FROM segment THEN
           RETURN false;
         END IF;
         PERFORM ops_bulk_build_settings(work_mem, workers);
         EXECUTE format('DROP INDEX IF EXISTS %I', prefix || (segment + 1)::text);
         EXECUTE format(
           'CREATE INDEX %I ON chunk_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L AND segment < %s',
           prefix || (segment + 1)::text, dimensions, model, segment + 1);
         EXECUTE format('DROP INDEX IF EXISTS %I', prefix || current.serving_bound::text);
         UPDATE chunk_embedding_segments s SET serving_bound = segment + 1, loading_segment = NULL, updated_at = now()
         WHERE s.model = ops_bulk_seal_segment.model;
         RETURN true;
       END $fn$`,
    );
    await queryRunner.query(`REVOKE ALL ON FUNCTION ops_bulk_build_settings(text, integer) FROM PUBLIC`);
    for (const fn of BULK_FUNCTIONS) {
      await queryRunner.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`);
      await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${APP_ROLE}, ${SYSTEM_ROLE}`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const fn of BULK_FUNCTIONS) await queryRunner.query(`DROP FUNCTION IF EXISTS ${fn}`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ops_bulk_build_settings(text, integer)`);
    await queryRunner.query(`DROP TABLE IF EXISTS chunk_embedding_segments`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP CONSTRAINT "CHK_document_jobs_status"`);
    await queryRunner.query(
      `ALTER TABLE "document_jobs" ADD CONSTRAINT "CHK_document_jobs_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed', 'superseded', 'cancelled'))`,
    );
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP COLUMN "bulk_segment"`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP COLUMN "bulk"`);
    await queryRunner.query(`ALTER TABLE "chunk_embeddings" DROP COLUMN "segment"`);
  }
}
