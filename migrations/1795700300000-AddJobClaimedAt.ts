import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair claiming across tenants: each job records when it was last claimed, so the claim query can
 * serve the tenant served longest ago first (round-robin), looked up per tenant through the index.
 */
export class AddJobClaimedAt1795700300000 implements MigrationInterface {
  name = 'AddJobClaimedAt1795700300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "document_jobs" ADD "claimed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "IDX_document_jobs_tenant_claimed" ON "document_jobs" ("tenant_id", "claimed_at")`,
    );
    await queryRunner.query(`ALTER TABLE "code_diffs" ADD "claimed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "IDX_code_diffs_tenant_claimed" ON "code_diffs" ("tenant_id", "claimed_at")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_code_diffs_tenant_claimed"`);
    await queryRunner.query(`ALTER TABLE "code_diffs" DROP COLUMN "claimed_at"`);
    await queryRunner.query(`DROP INDEX "IDX_document_jobs_tenant_claimed"`);
    await queryRunner.query(`ALTER TABLE "document_jobs" DROP COLUMN "claimed_at"`);
  }
}
