import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDocuments1795314812243 implements MigrationInterface {
  name = 'CreateDocuments1795314812243';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "documents" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "user_id" character varying(200) NOT NULL, "filename" character varying(500) NOT NULL, "content_type" character varying(200) NOT NULL, "format" character varying(16) NOT NULL, "size" integer NOT NULL, "status" character varying(16) NOT NULL DEFAULT \'queued\', "doc_metadata" jsonb NOT NULL DEFAULT \'{}\', "processing_progress" integer NOT NULL DEFAULT \'0\', "total_chunks" integer NOT NULL DEFAULT \'0\', "error_details" jsonb, "source_hash" character(64) NOT NULL, "revision" integer NOT NULL DEFAULT \'1\', "active_version" integer NOT NULL DEFAULT \'0\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "CHK_documents_status" CHECK ("status" IN (\'queued\', \'processing\', \'done\', \'failed\')), CONSTRAINT "PK_ac51aa5181ee2036f5ca482857c" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_04498bf7a8c8105f717285f71b" ON "documents" ("tenant_id", "filename") ',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_914f77fe1a6637f2bcf85c809c" ON "documents" ("tenant_id", "status") ',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_968df1869955e5f4f8fcf4b6a1" ON "documents" ("tenant_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "document_chunks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "document_id" uuid NOT NULL, "chunk_version" integer NOT NULL, "chunk_index" integer NOT NULL, "text" text NOT NULL, "chunk_type" character varying(8) NOT NULL, "page_number" integer, "slide_number" integer, "position_in_doc" integer NOT NULL, "table_data" jsonb, "source_hash" character(64) NOT NULL, "search_vector" tsvector NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_document_chunks_version_index" UNIQUE ("document_id", "chunk_version", "chunk_index"), CONSTRAINT "CHK_document_chunks_type" CHECK ("chunk_type" IN (\'text\', \'table\', \'image\', \'mixed\')), CONSTRAINT "PK_7f9060084e9b872dbb567193978" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_8b0dada3060557624a6a641f1b" ON "document_chunks" ("tenant_id", "document_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "document_corpus" ("tenant_id" uuid NOT NULL, "generation" integer NOT NULL DEFAULT \'0\', "active_model" character varying(200), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1adf77830095d662a06991e8de0" PRIMARY KEY ("tenant_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "document_jobs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "document_id" uuid, "kind" character varying(16) NOT NULL, "status" character varying(16) NOT NULL DEFAULT \'queued\', "revision" integer, "content" bytea, "target_model" character varying(200), "attempts" integer NOT NULL DEFAULT \'0\', "max_attempts" integer NOT NULL, "run_after" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "locked_by" character varying(100), "lease_expires_at" TIMESTAMP WITH TIME ZONE, "heartbeat_at" TIMESTAMP WITH TIME ZONE, "error_details" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "CHK_document_jobs_status" CHECK ("status" IN (\'queued\', \'running\', \'done\', \'failed\', \'superseded\')), CONSTRAINT "CHK_document_jobs_kind" CHECK ("kind" IN (\'ingest\', \'reembed\')), CONSTRAINT "PK_e3211d87a85f3ee381f0fde756c" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_79e88433b0cbb1d8ecd84e63d6" ON "document_jobs" ("document_id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_edfeb8f1d9132791b55346baa9" ON "document_jobs" ("status", "run_after") ',
    );
    await queryRunner.query(
      'ALTER TABLE "documents" ADD CONSTRAINT "FK_5109a94ccfd3f39bf4a7a1e1fa6" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "document_chunks" ADD CONSTRAINT "FK_214f76552d4e40b46467c27a14a" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "document_chunks" ADD CONSTRAINT "FK_b371ff8bc1e4f65fc3d01420be5" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "document_corpus" ADD CONSTRAINT "FK_1adf77830095d662a06991e8de0" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "document_jobs" ADD CONSTRAINT "FK_09461eb1d605221ac85ad3555bf" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "document_jobs" ADD CONSTRAINT "FK_79e88433b0cbb1d8ecd84e63d68" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "document_jobs" DROP CONSTRAINT "FK_79e88433b0cbb1d8ecd84e63d68"');
    await queryRunner.query('ALTER TABLE "document_jobs" DROP CONSTRAINT "FK_09461eb1d605221ac85ad3555bf"');
    await queryRunner.query('ALTER TABLE "document_corpus" DROP CONSTRAINT "FK_1adf77830095d662a06991e8de0"');
    await queryRunner.query('ALTER TABLE "document_chunks" DROP CONSTRAINT "FK_b371ff8bc1e4f65fc3d01420be5"');
    await queryRunner.query('ALTER TABLE "document_chunks" DROP CONSTRAINT "FK_214f76552d4e40b46467c27a14a"');
    await queryRunner.query('ALTER TABLE "documents" DROP CONSTRAINT "FK_5109a94ccfd3f39bf4a7a1e1fa6"');
    await queryRunner.query('DROP INDEX "public"."IDX_edfeb8f1d9132791b55346baa9"');
    await queryRunner.query('DROP INDEX "public"."IDX_79e88433b0cbb1d8ecd84e63d6"');
    await queryRunner.query('DROP TABLE "document_jobs"');
    await queryRunner.query('DROP TABLE "document_corpus"');
    await queryRunner.query('DROP INDEX "public"."IDX_8b0dada3060557624a6a641f1b"');
    await queryRunner.query('DROP TABLE "document_chunks"');
    await queryRunner.query('DROP INDEX "public"."IDX_968df1869955e5f4f8fcf4b6a1"');
    await queryRunner.query('DROP INDEX "public"."IDX_914f77fe1a6637f2bcf85c809c"');
    await queryRunner.query('DROP INDEX "public"."IDX_04498bf7a8c8105f717285f71b"');
    await queryRunner.query('DROP TABLE "documents"');
  }
}
