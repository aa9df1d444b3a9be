import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * BM25 statistics for the keyword branch: per-chunk keyword length, per-tenant chunk count and
 * total length, per-tenant document frequency of each lexeme. Existing data is backfilled from the
 * searchable set (active version of live documents).
 */
export class AddKeywordStatistics1795317411778 implements MigrationInterface {
  name = 'AddKeywordStatistics1795317411778';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "document_term_stats" ("tenant_id" uuid NOT NULL, "term" text NOT NULL, "df" integer NOT NULL, CONSTRAINT "PK_d061a2b75774632773a2ff3c156" PRIMARY KEY ("tenant_id", "term"))',
    );
    await queryRunner.query(
      'ALTER TABLE "document_chunks" ADD "search_length" integer NOT NULL DEFAULT \'0\'',
    );
    await queryRunner.query('ALTER TABLE "document_corpus" ADD "chunk_count" integer NOT NULL DEFAULT \'0\'');
    await queryRunner.query('ALTER TABLE "document_corpus" ADD "total_length" bigint NOT NULL DEFAULT \'0\'');
    await queryRunner.query(
      'ALTER TABLE "document_term_stats" ADD CONSTRAINT "FK_5974c44c37e9e592147b8755273" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      `UPDATE document_chunks c SET search_length = (SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(c.search_vector) u)`,
    );
    await queryRunner.query(
      `UPDATE document_corpus p SET chunk_count = s.n, total_length = s.total
       FROM (SELECT c.tenant_id, count(*) AS n, sum(c.search_length) AS total
             FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
             WHERE d.deleted_at IS NULL GROUP BY c.tenant_id) s
       WHERE p.tenant_id = s.tenant_id`,
    );
    await queryRunner.query(
      `INSERT INTO document_term_stats (tenant_id, term, df)
       SELECT c.tenant_id, u.lexeme, count(*)
       FROM document_chunks c JOIN documents d ON d.id = c.document_id AND c.chunk_version = d.active_version
       CROSS JOIN LATERAL unnest(c.search_vector) u
       WHERE d.deleted_at IS NULL GROUP BY c.tenant_id, u.lexeme`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "document_term_stats" DROP CONSTRAINT "FK_5974c44c37e9e592147b8755273"',
    );
    await queryRunner.query('ALTER TABLE "document_corpus" DROP COLUMN "total_length"');
    await queryRunner.query('ALTER TABLE "document_corpus" DROP COLUMN "chunk_count"');
    await queryRunner.query('ALTER TABLE "document_chunks" DROP COLUMN "search_length"');
    await queryRunner.query('DROP TABLE "document_term_stats"');
  }
}
