import { MigrationInterface, QueryRunner } from 'typeorm';

/** How far a demo load has come (0-100), so health and /ops/demo/status can say it while it runs. */
export class AddDemoLoadProgress1795318650000 implements MigrationInterface {
  name = 'AddDemoLoadProgress1795318650000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ops_demo_loads" ADD "progress_percent" smallint NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(`UPDATE "ops_demo_loads" SET "progress_percent" = 100 WHERE "state" = 'ready'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ops_demo_loads" DROP COLUMN "progress_percent"`);
  }
}
