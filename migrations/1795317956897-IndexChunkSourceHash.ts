import { MigrationInterface, QueryRunner } from 'typeorm';

/** Embedding reuse looks chunks up by (tenant, source_hash): without this, each ingest scans the tenant's chunks. */
export class IndexChunkSourceHash1795317956897 implements MigrationInterface {
  name = 'IndexChunkSourceHash1795317956897';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "IDX_da8d3577e630964d9fe612a777" ON "document_chunks" ("tenant_id", "source_hash") ',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."IDX_da8d3577e630964d9fe612a777"');
  }
}
