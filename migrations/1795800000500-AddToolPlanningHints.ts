import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tool assets carry optional planning hints (examples, keywords, not_for per language): what the planner
 * knows about a tenant's tool comes from what the tenant published (docs/notes/planner.md).
 */
export class AddToolPlanningHints1795800000500 implements MigrationInterface {
  name = 'AddToolPlanningHints1795800000500';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tb_asset_registry" ADD "planning_hints" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tb_asset_registry" DROP COLUMN "planning_hints"`);
  }
}
