import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAssetRegistry1795314934794 implements MigrationInterface {
  name = 'CreateAssetRegistry1795314934794';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "tb_asset_registry" ("asset_id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "asset_type" character varying(32) NOT NULL, "name" character varying(200) NOT NULL, "description" text, "version" integer NOT NULL DEFAULT \'0\', "published_version" integer, "status" character varying(16) NOT NULL DEFAULT \'draft\', "revision" integer NOT NULL DEFAULT \'1\', "tags" jsonb NOT NULL DEFAULT \'[]\', "query_sql" text, "query_cypher" text, "query_http" jsonb, "query_params" jsonb, "query_metadata" jsonb, "tool_type" character varying(16), "tool_config" jsonb, "tool_input_schema" jsonb, "tool_output_schema" jsonb, "sample_input" jsonb, "has_side_effects" boolean, "scope" character varying(200), "engine" character varying(200), "template" text, "input_schema" jsonb, "output_contract" jsonb, "content" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_by" character varying(200), "updated_by" character varying(200), "published_at" TIMESTAMP WITH TIME ZONE, "published_by" character varying(200), "archived_at" TIMESTAMP WITH TIME ZONE, "archived_by" character varying(200), CONSTRAINT "UQ_tb_asset_registry_tenant_type_name" UNIQUE ("tenant_id", "asset_type", "name"), CONSTRAINT "CHK_tb_asset_registry_status" CHECK ("status" IN (\'draft\', \'published\', \'archived\')), CONSTRAINT "CHK_tb_asset_registry_type" CHECK ("asset_type" IN (\'prompt\', \'mapping\', \'policy\', \'query\', \'source\', \'catalog\', \'resolver\', \'tool\', \'screen\')), CONSTRAINT "PK_ec8c59e8b5a949ae26e58c68f10" PRIMARY KEY ("asset_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_58e8aff85e558278ed6fcd7a57" ON "tb_asset_registry" ("tenant_id", "asset_type", "status") ',
    );
    await queryRunner.query(
      'CREATE TABLE "tb_asset_version_history" ("history_id" uuid NOT NULL DEFAULT gen_random_uuid(), "asset_id" uuid NOT NULL, "tenant_id" uuid NOT NULL, "version" integer NOT NULL, "snapshot" jsonb NOT NULL, "published_by" character varying(200), "published_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "rollback_from_version" integer, "note" text, "contract_check" jsonb, "dry_run" jsonb, CONSTRAINT "UQ_tb_asset_version_history_asset_version" UNIQUE ("asset_id", "version"), CONSTRAINT "PK_8207f0045b23cba646513871787" PRIMARY KEY ("history_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_8fec7cb066253f18a1e169b5c4" ON "tb_asset_version_history" ("tenant_id", "asset_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "tb_asset_registry" ADD CONSTRAINT "FK_2218cfdfc2710f6dda9862f6b52" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tb_asset_version_history" ADD CONSTRAINT "FK_7bd42b42e1843697766602a1ec2" FOREIGN KEY ("asset_id") REFERENCES "tb_asset_registry"("asset_id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "tb_asset_version_history" ADD CONSTRAINT "FK_2fb3c8a25710c1f2644648f2456" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // Published versions are immutable: refuse any UPDATE (deletes only cascade from the asset or tenant).
    await queryRunner.query(`
      CREATE FUNCTION tb_asset_version_history_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'published asset versions are immutable' USING ERRCODE = 'restrict_violation';
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER "TRG_tb_asset_version_history_immutable" BEFORE UPDATE ON "tb_asset_version_history" FOR EACH ROW EXECUTE FUNCTION tb_asset_version_history_immutable()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP TRIGGER "TRG_tb_asset_version_history_immutable" ON "tb_asset_version_history"',
    );
    await queryRunner.query('DROP FUNCTION tb_asset_version_history_immutable()');
    await queryRunner.query(
      'ALTER TABLE "tb_asset_version_history" DROP CONSTRAINT "FK_2fb3c8a25710c1f2644648f2456"',
    );
    await queryRunner.query(
      'ALTER TABLE "tb_asset_version_history" DROP CONSTRAINT "FK_7bd42b42e1843697766602a1ec2"',
    );
    await queryRunner.query(
      'ALTER TABLE "tb_asset_registry" DROP CONSTRAINT "FK_2218cfdfc2710f6dda9862f6b52"',
    );
    await queryRunner.query('DROP INDEX "public"."IDX_8fec7cb066253f18a1e169b5c4"');
    await queryRunner.query('DROP TABLE "tb_asset_version_history"');
    await queryRunner.query('DROP INDEX "public"."IDX_58e8aff85e558278ed6fcd7a57"');
    await queryRunner.query('DROP TABLE "tb_asset_registry"');
  }
}
