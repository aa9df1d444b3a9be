import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOpsDataAndStageRuns1795315147164 implements MigrationInterface {
  name = 'CreateOpsDataAndStageRuns1795315147164';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "ops_demo_loads" ("tenant_id" uuid NOT NULL, "state" character varying(16) NOT NULL, "scale" character varying(16) NOT NULL, "dataset_version" integer NOT NULL, "phase" character varying(64), "counts" jsonb NOT NULL DEFAULT \'{}\', "error" text, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_086243f3e59cc5bc09683e9811b" PRIMARY KEY ("tenant_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "ops_configuration_items" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "ci_type" character varying(32) NOT NULL, "environment" character varying(16) NOT NULL, "status" character varying(16) NOT NULL, "owner" character varying(200), "tags" text array NOT NULL DEFAULT \'{}\', "attributes" jsonb NOT NULL DEFAULT \'{}\', "description" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_ops_configuration_items_tenant_name" UNIQUE ("tenant_id", "name"), CONSTRAINT "CHK_ops_ci_environment" CHECK ("environment" IN (\'prod\', \'staging\', \'dev\')), CONSTRAINT "PK_4c2aab4211fa0ac43b43ffb7567" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_934f91eadcdf0401ab44e1dc96" ON "ops_configuration_items" ("tenant_id", "ci_type", "environment") ',
    );
    await queryRunner.query(
      'CREATE TABLE "ops_ci_relations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "source_id" uuid NOT NULL, "target_id" uuid NOT NULL, "relation_type" character varying(16) NOT NULL, CONSTRAINT "UQ_ops_ci_relations_edge" UNIQUE ("tenant_id", "source_id", "target_id", "relation_type"), CONSTRAINT "CHK_ops_ci_relations_type" CHECK ("relation_type" IN (\'runs_on\', \'depends_on\', \'part_of\')), CONSTRAINT "PK_f074f3d60babf8dbeb2d6a0e60a" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_d9cfef0b13d8450b19b08718a1" ON "ops_ci_relations" ("tenant_id", "target_id") ',
    );
    await queryRunner.query(
      'CREATE TABLE "ops_history_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "ci_id" uuid, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "kind" character varying(16) NOT NULL, "severity" character varying(16) NOT NULL, "title" character varying(300) NOT NULL, "details" text, "attributes" jsonb NOT NULL DEFAULT \'{}\', "external_id" character varying(200), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_ops_history_events_tenant_external" UNIQUE ("tenant_id", "external_id"), CONSTRAINT "PK_b0c53f13d76282ba4c17b9a892a" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_007edd673d451f84dc92f9e677" ON "ops_history_events" ("tenant_id", "ci_id", "occurred_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_f87df47564fb3078899e86c15c" ON "ops_history_events" ("tenant_id", "occurred_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "ops_metric_samples" ("tenant_id" uuid NOT NULL, "metric_name" character varying(64) NOT NULL, "step_seconds" integer NOT NULL, "ts" TIMESTAMP WITH TIME ZONE NOT NULL, "ci_id" uuid NOT NULL, "value" double precision NOT NULL, CONSTRAINT "PK_d46e7c2aafa203fd6272ce47a92" PRIMARY KEY ("tenant_id", "metric_name", "step_seconds", "ts", "ci_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "ops_stage_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "stage_name" character varying(200) NOT NULL, "status" character varying(16) NOT NULL, "user_id" character varying(200) NOT NULL, "request_id" character varying(128), "trace_id" character varying(64), "request" jsonb NOT NULL, "steps" jsonb NOT NULL DEFAULT \'[]\', "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, "duration_ms" double precision, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6f628b179065d0d03c6eb07e621" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_bcbd6dd40604ba9187288fccfe" ON "ops_stage_runs" ("tenant_id", "created_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_demo_loads" ADD CONSTRAINT "FK_086243f3e59cc5bc09683e9811b" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_configuration_items" ADD CONSTRAINT "FK_dba3d1574ae131e656c242849a2" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" ADD CONSTRAINT "FK_f0d2bbb0d39e050cd8205df8473" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" ADD CONSTRAINT "FK_d60bb3193ee7f89c46b3587e1f6" FOREIGN KEY ("source_id") REFERENCES "ops_configuration_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" ADD CONSTRAINT "FK_a020ff06878ac2967caafc0af49" FOREIGN KEY ("target_id") REFERENCES "ops_configuration_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_history_events" ADD CONSTRAINT "FK_f597214fd0f88c1f72a55999ae8" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_history_events" ADD CONSTRAINT "FK_d075db61e2675e57514fdaad7c8" FOREIGN KEY ("ci_id") REFERENCES "ops_configuration_items"("id") ON DELETE SET NULL ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_metric_samples" ADD CONSTRAINT "FK_70dade4bdba21a99ce515d24b0d" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_metric_samples" ADD CONSTRAINT "FK_3e74084021420bd11a8fe1791b4" FOREIGN KEY ("ci_id") REFERENCES "ops_configuration_items"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_stage_runs" ADD CONSTRAINT "FK_8d926635ed84e6a26f722689fda" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "ops_stage_runs" DROP CONSTRAINT "FK_8d926635ed84e6a26f722689fda"');
    await queryRunner.query(
      'ALTER TABLE "ops_metric_samples" DROP CONSTRAINT "FK_3e74084021420bd11a8fe1791b4"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_metric_samples" DROP CONSTRAINT "FK_70dade4bdba21a99ce515d24b0d"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_history_events" DROP CONSTRAINT "FK_d075db61e2675e57514fdaad7c8"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_history_events" DROP CONSTRAINT "FK_f597214fd0f88c1f72a55999ae8"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" DROP CONSTRAINT "FK_a020ff06878ac2967caafc0af49"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" DROP CONSTRAINT "FK_d60bb3193ee7f89c46b3587e1f6"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_ci_relations" DROP CONSTRAINT "FK_f0d2bbb0d39e050cd8205df8473"',
    );
    await queryRunner.query(
      'ALTER TABLE "ops_configuration_items" DROP CONSTRAINT "FK_dba3d1574ae131e656c242849a2"',
    );
    await queryRunner.query('ALTER TABLE "ops_demo_loads" DROP CONSTRAINT "FK_086243f3e59cc5bc09683e9811b"');
    await queryRunner.query('DROP INDEX "public"."IDX_bcbd6dd40604ba9187288fccfe"');
    await queryRunner.query('DROP TABLE "ops_stage_runs"');
    await queryRunner.query('DROP TABLE "ops_metric_samples"');
    await queryRunner.query('DROP INDEX "public"."IDX_f87df47564fb3078899e86c15c"');
    await queryRunner.query('DROP INDEX "public"."IDX_007edd673d451f84dc92f9e677"');
    await queryRunner.query('DROP TABLE "ops_history_events"');
    await queryRunner.query('DROP INDEX "public"."IDX_d9cfef0b13d8450b19b08718a1"');
    await queryRunner.query('DROP TABLE "ops_ci_relations"');
    await queryRunner.query('DROP INDEX "public"."IDX_934f91eadcdf0401ab44e1dc96"');
    await queryRunner.query('DROP TABLE "ops_configuration_items"');
    await queryRunner.query('DROP TABLE "ops_demo_loads"');
  }
}
