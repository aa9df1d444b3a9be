import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateToolPendingActions1795606677666 implements MigrationInterface {
  name = 'CreateToolPendingActions1795606677666';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "tool_pending_actions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "tool" character varying(200) NOT NULL, "input" jsonb NOT NULL, "status" character varying(16) NOT NULL, "caller" character varying(16) NOT NULL, "requested_by" character varying(200) NOT NULL, "request_id" character varying(128), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "decided_by" character varying(200), "decided_at" TIMESTAMP WITH TIME ZONE, "result" jsonb, CONSTRAINT "PK_5b826948095a97cbebf608a9894" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "IDX_32419a6627f47c3e43d5c9471d" ON "tool_pending_actions" ("tenant_id", "status", "created_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "tool_pending_actions" ADD CONSTRAINT "FK_d51058347e53ad2134737d6b805" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "tool_pending_actions" DROP CONSTRAINT "FK_d51058347e53ad2134737d6b805"',
    );
    await queryRunner.query('DROP INDEX "public"."IDX_32419a6627f47c3e43d5c9471d"');
    await queryRunner.query('DROP TABLE "tool_pending_actions"');
  }
}
