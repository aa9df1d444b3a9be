import { MigrationInterface, QueryRunner } from 'typeorm';

// The same policy shape as EnableRowLevelSecurity (scalar subqueries evaluated once per statement).
const TENANT_MATCH = `(SELECT nullif(current_setting('app.tenant_id', true), '')::uuid)`;

/**
 * Stored agent runs (libs/assistant): who asked (user, caller, key, request and trace ids), the result,
 * and for a run paused on a held side-effect call what resuming it in any process needs. A tenant
 * table: the tenant_isolation policy as on the others (system work bypasses it as ops_system, which has
 * BYPASSRLS; no setting switches it off).
 */
export class CreateAgentRuns1795900000000 implements MigrationInterface {
  name = 'CreateAgentRuns1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "agent_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "tenant_id" uuid NOT NULL, "status" character varying(24) NOT NULL, "mode" character varying(16) NOT NULL, "user_id" character varying(200) NOT NULL, "caller_id" character varying(200) NOT NULL, "key_id" character varying(200), "caller" character varying(16) NOT NULL, "request_id" character varying(128), "trace_id" character varying(64), "prompt" text NOT NULL, "pending" jsonb NOT NULL DEFAULT '[]', "state" jsonb, "result" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_agent_runs" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_469b2be235f3205a9733570018" ON "agent_runs" ("tenant_id", "status", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "agent_runs" ADD CONSTRAINT "FK_ccc56439b2a51fd4fc1492e885a" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "agent_runs" ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(`ALTER TABLE "agent_runs" FORCE ROW LEVEL SECURITY`);
    const match = `tenant_id = ${TENANT_MATCH}`;
    await queryRunner.query(
      `CREATE POLICY tenant_isolation ON "agent_runs" AS PERMISSIVE FOR ALL TO PUBLIC USING (${match}) WITH CHECK (${match})`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "agent_runs"`);
  }
}
