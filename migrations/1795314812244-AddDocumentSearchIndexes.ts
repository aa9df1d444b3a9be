import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What TypeORM cannot express: the embeddings table (an untyped `vector` column, so each model keeps
 * its own dimension; per-model HNSW indexes are created when a model is first used), the GIN index
 * over the stored tsvector, and the one-pending-re-embed-per-tenant-and-model guard.
 */
export class AddDocumentSearchIndexes1795314812244 implements MigrationInterface {
  name = 'AddDocumentSearchIndexes1795314812244';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "chunk_embeddings" ("chunk_id" uuid NOT NULL, "tenant_id" uuid NOT NULL, "model" character varying(200) NOT NULL, "embedding" vector NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_chunk_embeddings" PRIMARY KEY ("chunk_id", "model"), CONSTRAINT "FK_chunk_embeddings_chunk" FOREIGN KEY ("chunk_id") REFERENCES "document_chunks"("id") ON DELETE CASCADE, CONSTRAINT "FK_chunk_embeddings_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE)',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_chunk_embeddings_tenant_model" ON "chunk_embeddings" ("tenant_id", "model")',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_document_chunks_search_vector" ON "document_chunks" USING gin ("search_vector")',
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_document_jobs_pending_reembed" ON "document_jobs" ("tenant_id", "target_model") WHERE "kind" = 'reembed' AND "status" IN ('queued', 'running')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."UQ_document_jobs_pending_reembed"');
    await queryRunner.query('DROP INDEX "public"."IDX_document_chunks_search_vector"');
    await queryRunner.query('DROP TABLE "chunk_embeddings"');
  }
}
