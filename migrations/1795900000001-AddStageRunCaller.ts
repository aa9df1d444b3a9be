import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stage runs record who drove them (`caller`: operator, plan, agent, mcp) and the API key id, next to
 * the user, request and trace ids they already had, so `GET /ops/stage/runs` can filter on all of them.
 */
export class AddStageRunCaller1795900000001 implements MigrationInterface {
  name = 'AddStageRunCaller1795900000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ops_stage_runs" ADD "caller" character varying(16)`);
    await queryRunner.query(`ALTER TABLE "ops_stage_runs" ADD "key_id" character varying(200)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ops_stage_runs" DROP COLUMN "key_id"`);
    await queryRunner.query(`ALTER TABLE "ops_stage_runs" DROP COLUMN "caller"`);
  }
}
