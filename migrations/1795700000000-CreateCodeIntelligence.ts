import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';

// The same policy shape as EnableRowLevelSecurity (scalar subqueries evaluated once per statement).
const TENANT_MATCH = `(SELECT nullif(current_setting('app.tenant_id', true), '')::uuid)`;
const BYPASS = `(SELECT current_setting('app.rls_bypass', true)) = 'on'`;

const TABLES = ['code_repositories', 'code_files', 'code_diffs', 'code_nodes', 'code_edges'];

/**
 * Code intelligence (libs/code): a user's repositories, the current text of each file, the queued
 * diff requests (the durable unit of work) and the code graph (nodes and edges). Every table holds a
 * tenant's rows and gets the tenant_isolation / system_bypass policies here, in the migration that
 * creates it.
 */
export class CreateCodeIntelligence1795700000000 implements MigrationInterface {
  name = 'CreateCodeIntelligence1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "code_repositories" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
        "user_id" character varying(200) NOT NULL,
        "name" character varying(200) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_code_repositories" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_code_repositories_name" UNIQUE ("tenant_id", "user_id", "name"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "code_files" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
        "repository_id" uuid NOT NULL REFERENCES "code_repositories"("id") ON DELETE CASCADE,
        "path" character varying(1000) NOT NULL,
        "text" text NOT NULL,
        "content_hash" character(64) NOT NULL,
        "language" character varying(32) NOT NULL,
        "size" integer NOT NULL,
        "indexed_hash" character(64),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_code_files" PRIMARY KEY ("id"),
        CONSTRAINT "UQ_code_files_path" UNIQUE ("repository_id", "path"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "code_diffs" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "seq" bigserial NOT NULL,
        "tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
        "repository_id" uuid NOT NULL REFERENCES "code_repositories"("id") ON DELETE CASCADE,
        "user_id" character varying(200) NOT NULL,
        "commit" character varying(200),
        "request_hash" character(64) NOT NULL,
        "changes" jsonb NOT NULL,
        "status" character varying(16) NOT NULL DEFAULT 'queued',
        "attempts" integer NOT NULL DEFAULT 0,
        "max_attempts" integer NOT NULL,
        "run_after" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "locked_by" character varying(100),
        "lease_expires_at" TIMESTAMP WITH TIME ZONE,
        "result" jsonb,
        "error" jsonb,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_code_diffs" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_code_diffs_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed')))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_code_diffs_due" ON "code_diffs" ("status", "run_after")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_code_diffs_repository" ON "code_diffs" ("repository_id", "seq")`,
    );
    await queryRunner.query(
      `CREATE TABLE "code_nodes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
        "repository_id" uuid NOT NULL REFERENCES "code_repositories"("id") ON DELETE CASCADE,
        "path" character varying(1000),
        "kind" character varying(16) NOT NULL,
        "subkind" character varying(32) NOT NULL,
        "name" character varying(500) NOT NULL,
        "qualified_name" character varying(1500) NOT NULL,
        "signature" text,
        "start_line" integer,
        "end_line" integer,
        "doc_comment" text,
        "language" character varying(32),
        "exported" boolean NOT NULL DEFAULT false,
        "parent_id" uuid REFERENCES "code_nodes"("id") ON DELETE CASCADE,
        "document_id" uuid,
        CONSTRAINT "PK_code_nodes" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_code_nodes_kind" CHECK ("kind" IN ('File', 'Class', 'Function', 'Module')))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_code_nodes_path" ON "code_nodes" ("repository_id", "path")`);
    await queryRunner.query(`CREATE INDEX "IDX_code_nodes_name" ON "code_nodes" ("repository_id", "name")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_code_nodes_module" ON "code_nodes" ("repository_id", "qualified_name") WHERE "kind" = 'Module'`,
    );
    await queryRunner.query(
      `CREATE TABLE "code_edges" (
        "id" bigserial NOT NULL,
        "tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
        "repository_id" uuid NOT NULL REFERENCES "code_repositories"("id") ON DELETE CASCADE,
        "source_id" uuid NOT NULL REFERENCES "code_nodes"("id") ON DELETE CASCADE,
        "source_path" character varying(1000) NOT NULL,
        "kind" character varying(16) NOT NULL,
        "target_id" uuid REFERENCES "code_nodes"("id") ON DELETE SET NULL,
        "target_name" character varying(500) NOT NULL,
        "target_path" character varying(1000),
        "receiver" character varying(500),
        "resolution" character varying(16),
        "line" integer,
        CONSTRAINT "PK_code_edges" PRIMARY KEY ("id"),
        CONSTRAINT "CHK_code_edges_kind" CHECK ("kind" IN ('CONTAINS', 'IMPORTS', 'CALLS', 'EXTENDS', 'IMPLEMENTS')))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_code_edges_source" ON "code_edges" ("source_id")`);
    await queryRunner.query(`CREATE INDEX "IDX_code_edges_target" ON "code_edges" ("target_id")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_code_edges_unresolved" ON "code_edges" ("repository_id", "target_name") WHERE "target_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_code_edges_path" ON "code_edges" ("repository_id", "source_path")`,
    );

    for (const table of TABLES) {
      await queryRunner.query(`ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY`);
      await queryRunner.query(`ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY`);
      const match = `tenant_id = ${TENANT_MATCH}`;
      await queryRunner.query(
        `CREATE POLICY tenant_isolation ON "${table}" AS PERMISSIVE FOR ALL TO PUBLIC USING (${match}) WITH CHECK (${match})`,
      );
      await queryRunner.query(
        `CREATE POLICY system_bypass ON "${table}" AS PERMISSIVE FOR ALL TO ${APP_ROLE} USING (${BYPASS}) WITH CHECK (${BYPASS})`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [...TABLES].reverse()) await queryRunner.query(`DROP TABLE "${table}"`);
  }
}
