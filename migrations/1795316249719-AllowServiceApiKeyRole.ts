import { MigrationInterface, QueryRunner } from 'typeorm';

/** Adds the `service` role (service-to-service keys). TypeORM diffs checks by name only, so this is hand-written. */
export class AllowServiceApiKeyRole1795316249719 implements MigrationInterface {
  name = 'AllowServiceApiKeyRole1795316249719';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "api_keys" DROP CONSTRAINT "CHK_api_keys_role"');
    await queryRunner.query(
      "ALTER TABLE \"api_keys\" ADD CONSTRAINT \"CHK_api_keys_role\" CHECK (\"role\" IN ('reader', 'operator', 'admin', 'service'))",
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM "api_keys" WHERE "role" = \'service\'');
    await queryRunner.query('ALTER TABLE "api_keys" DROP CONSTRAINT "CHK_api_keys_role"');
    await queryRunner.query(
      'ALTER TABLE "api_keys" ADD CONSTRAINT "CHK_api_keys_role" CHECK ("role" IN (\'reader\', \'operator\', \'admin\'))',
    );
  }
}
