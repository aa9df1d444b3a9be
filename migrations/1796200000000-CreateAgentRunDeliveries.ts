import { MigrationInterface, QueryRunner } from 'typeorm';

// The same policy shape as EnableRowLevelSecurity (scalar subqueries evaluated once per statement).
const TENANT_MATCH = `(SELECT nullif(current_setting('app.tenant_id', true), '')::uuid)`;

/**
 * Webhooks of agent runs (libs/assistant): a run started with `callback_url` keeps the URL, and each
 * event it reaches (awaiting_confirmation, completed, failed, cancelled) is one delivery row: the exact
 * body sent, its attempts and their outcome, and when the next attempt is due, so that a scheduler in
 * any process retries it after a restart. A tenant table: the tenant_isolation policy as on the others.
 */
export class CreateAgentRunDeliveries1796200000000 implements MigrationInterface {
  name = 'CreateAgentRunDeliveries1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent_runs" ADD "callback_url" text`);
    await queryRunner.query(
      `CREATE TABLE "agent_run_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "run_id" uuid NOT NULL, "event" character varying(40) NOT NULL, "url" text NOT NULL, "body" text NOT NULL, "status" character varying(16) NOT NULL, "attempt_count" integer NOT NULL DEFAULT 0, "attempts" jsonb NOT NULL DEFAULT '[]', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "claimed_at" TIMESTAMP WITH TIME ZONE, "delivered_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_76cba8cac990e488180ee99fd34" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_2354b2ec34c27ec2e79b00e133" ON "agent_run_deliveries" ("status", "next_attempt_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_a2a67f547e7ae11da3121756e1" ON "agent_run_deliveries" ("tenant_id", "run_id", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "agent_run_deliveries" ADD CONSTRAINT "FK_dfef669b6f4e13e28905f45ce16" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "agent_run_deliveries" ADD CONSTRAINT "FK_722192aee00a94c45ce8076e884" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "agent_run_deliveries" ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(`ALTER TABLE "agent_run_deliveries" FORCE ROW LEVEL SECURITY`);
    const match = `tenant_id = ${TENANT_MATCH}`;
    await queryRunner.query(
      `CREATE POLICY tenant_isolation ON "agent_run_deliveries" AS PERMISSIVE FOR ALL TO PUBLIC USING (${match}) WITH CHECK (${match})`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent_run_deliveries"`);
    await queryRunner.query(`ALTER TABLE "agent_runs" DROP COLUMN "callback_url"`);
  }
}
