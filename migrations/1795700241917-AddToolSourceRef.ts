import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tool and query assets name the data source they read (`source_ref`: `internal` or a published source
 * asset), so the planner plans each tool over its source's catalog (docs/notes/sources.md).
 */
export class AddToolSourceRef1795700241917 implements MigrationInterface {
  name = 'AddToolSourceRef1795700241917';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tb_asset_registry" ADD "source_ref" character varying(200)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tb_asset_registry" DROP COLUMN "source_ref"`);
  }
}
