import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deleting a document cancels its queued or running ingestion job: a job status of its own. */
export class AddCancelledDocumentJobs1795605946554 implements MigrationInterface {
  name = 'AddCancelledDocumentJobs1795605946554';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "document_jobs" DROP CONSTRAINT "CHK_document_jobs_status"');
    await queryRunner.query(
      `ALTER TABLE "document_jobs" ADD CONSTRAINT "CHK_document_jobs_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed', 'superseded', 'cancelled'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "document_jobs" SET "status" = 'superseded' WHERE "status" = 'cancelled'`,
    );
    await queryRunner.query('ALTER TABLE "document_jobs" DROP CONSTRAINT "CHK_document_jobs_status"');
    await queryRunner.query(
      `ALTER TABLE "document_jobs" ADD CONSTRAINT "CHK_document_jobs_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed', 'superseded'))`,
    );
  }
}
