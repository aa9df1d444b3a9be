import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed ingestion stays visible until someone looks at it: a document counts its manual retries, and a
 * failed job keeps its bytes and is "resolved" (retried, replaced by new content, or dismissed) before
 * the retention cleanup may remove it. Unresolved failed jobs are the dead-letter view.
 */
export class AddDocumentFailureHandling1795700100000 implements MigrationInterface {
  name = 'AddDocumentFailureHandling1795700100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "documents" ADD "retry_count" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "document_jobs" ADD "resolved_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "document_jobs" ADD "resolution" character varying(16)`);
    await queryRunner.query(
      `ALTER TABLE "document_jobs" ADD CONSTRAINT "CHK_document_jobs_resolution" CHECK ("resolution" IS NULL OR "resolution" IN ('retried', 'replaced', 'dismissed'))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_document_jobs_dead_letter" ON "document_jobs" ("tenant_id", "finished_at") WHERE "status" = 'failed' AND "resolved_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_document_jobs_dead_letter"`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP CONSTRAINT "CHK_document_jobs_resolution"`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP COLUMN "resolution"`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP COLUMN "resolved_at"`);
    await queryRunner.query(`ALTER TABLE "documents" DROP COLUMN "retry_count"`);
  }
}
