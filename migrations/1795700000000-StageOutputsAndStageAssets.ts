import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stage runs keep their mapped output, stage outcomes and warnings (output mapping, runs of several
 * stages); `stage` becomes an asset type (published stage definitions run by name).
 */
export class StageOutputsAndStageAssets1795700000000 implements MigrationInterface {
  name = 'StageOutputsAndStageAssets1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "ops_stage_runs" ADD COLUMN "output" jsonb');
    await queryRunner.query('ALTER TABLE "tb_asset_registry" DROP CONSTRAINT "CHK_tb_asset_registry_type"');
    await queryRunner.query(
      `ALTER TABLE "tb_asset_registry" ADD CONSTRAINT "CHK_tb_asset_registry_type" CHECK ("asset_type" IN ('prompt', 'mapping', 'policy', 'query', 'source', 'catalog', 'resolver', 'tool', 'screen', 'stage'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "tb_asset_registry" WHERE "asset_type" = 'stage'`);
    await queryRunner.query('ALTER TABLE "tb_asset_registry" DROP CONSTRAINT "CHK_tb_asset_registry_type"');
    await queryRunner.query(
      `ALTER TABLE "tb_asset_registry" ADD CONSTRAINT "CHK_tb_asset_registry_type" CHECK ("asset_type" IN ('prompt', 'mapping', 'policy', 'query', 'source', 'catalog', 'resolver', 'tool', 'screen'))`,
    );
    await queryRunner.query('ALTER TABLE "ops_stage_runs" DROP COLUMN "output"');
  }
}
