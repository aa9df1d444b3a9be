import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';

const TENANT_MATCH = `(SELECT nullif(current_setting('app.tenant_id', true), '')::uuid)`;
const BYPASS = `(SELECT current_setting('app.rls_bypass', true)) = 'on'`;

/** Which counter each trigger bumps, and on which change of which table. */
const TRIGGERS: Array<{ name: string; table: string; domain: string; on: string; when: string }> = [
  {
    name: 'TRG_tb_asset_registry_serving_changed',
    table: 'tb_asset_registry',
    domain: 'assets',
    on: 'UPDATE',
    // publish, rollback (a new published version) and archive; editing a draft changes nothing served
    when: `OLD.published_version IS DISTINCT FROM NEW.published_version OR (OLD.status = 'archived') IS DISTINCT FROM (NEW.status = 'archived')`,
  },
  {
    name: 'TRG_tb_asset_registry_deleted',
    table: 'tb_asset_registry',
    domain: 'assets',
    on: 'DELETE',
    when: `OLD.published_version IS NOT NULL`,
  },
  {
    name: 'TRG_document_corpus_changed',
    table: 'document_corpus',
    domain: 'documents',
    on: 'UPDATE',
    when: `OLD.generation IS DISTINCT FROM NEW.generation OR OLD.active_model IS DISTINCT FROM NEW.active_model`,
  },
  {
    name: 'TRG_document_corpus_created',
    table: 'document_corpus',
    domain: 'documents',
    on: 'INSERT',
    when: `NEW.generation > 0`,
  },
  {
    name: 'TRG_api_keys_revoked',
    table: 'api_keys',
    domain: 'api_keys',
    on: 'UPDATE',
    when: `OLD.revoked_at IS DISTINCT FROM NEW.revoked_at`,
  },
];

/**
 * Per-tenant change generations: one row per tenant with a counter per kind of change that other
 * processes serve from memory or cache (published assets, the document corpus, API keys). Triggers
 * bump them in the same transaction as the change, whichever code path makes it, so a process that
 * missed a change-bus message sees the counter moved on its next poll and reloads that tenant.
 * Row-level security as on every tenant table (see EnableRowLevelSecurity).
 */
export class CreateTenantChangeGenerations1795608000000 implements MigrationInterface {
  name = 'CreateTenantChangeGenerations1795608000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "tenant_change_generations" (
         "tenant_id" uuid NOT NULL,
         "assets" bigint NOT NULL DEFAULT 0,
         "documents" bigint NOT NULL DEFAULT 0,
         "api_keys" bigint NOT NULL DEFAULT 0,
         "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "PK_tenant_change_generations" PRIMARY KEY ("tenant_id"),
         CONSTRAINT "FK_tenant_change_generations_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "tenant_change_generations" TO ${APP_ROLE}`,
    );
    const match = `tenant_id = ${TENANT_MATCH}`;
    await queryRunner.query(`ALTER TABLE "tenant_change_generations" ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(`ALTER TABLE "tenant_change_generations" FORCE ROW LEVEL SECURITY`);
    await queryRunner.query(
      `CREATE POLICY tenant_isolation ON "tenant_change_generations" AS PERMISSIVE FOR ALL TO PUBLIC USING (${match}) WITH CHECK (${match})`,
    );
    await queryRunner.query(
      `CREATE POLICY system_bypass ON "tenant_change_generations" AS PERMISSIVE FOR ALL TO ${APP_ROLE} USING (${BYPASS}) WITH CHECK (${BYPASS})`,
    );
    // Runs as the role that made the change, under its scope: the row it bumps is that tenant's.
    await queryRunner.query(
      `CREATE FUNCTION ops_bump_change_generation() RETURNS trigger LANGUAGE plpgsql AS $fn$
       DECLARE
         domain text := TG_ARGV[0];
         tenant uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
       BEGIN
         INSERT INTO tenant_change_generations AS g (tenant_id, assets, documents, api_keys)
         VALUES (tenant, (domain = 'assets')::int, (domain = 'documents')::int, (domain = 'api_keys')::int)
         ON CONFLICT (tenant_id) DO UPDATE SET
           assets = g.assets + EXCLUDED.assets,
           documents = g.documents + EXCLUDED.documents,
           api_keys = g.api_keys + EXCLUDED.api_keys,
           updated_at = now();
         RETURN NULL;
       END $fn$`,
    );
    for (const t of TRIGGERS) {
      await queryRunner.query(
        `CREATE TRIGGER "${t.name}" AFTER ${t.on} ON "${t.table}" FOR EACH ROW WHEN (${t.when}) EXECUTE FUNCTION ops_bump_change_generation('${t.domain}')`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const t of TRIGGERS) await queryRunner.query(`DROP TRIGGER IF EXISTS "${t.name}" ON "${t.table}"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ops_bump_change_generation()`);
    await queryRunner.query(`DROP TABLE "tenant_change_generations"`);
  }
}
