import { MigrationInterface, QueryRunner } from 'typeorm';
import { APP_ROLE } from './1795607000000-EnableRowLevelSecurity';

/** The role cross-tenant system work connects as (native) or switches to (embedded): BYPASSRLS. */
export const SYSTEM_ROLE = 'ops_system';

const BYPASS = `(SELECT current_setting('app.rls_bypass', true)) = 'on'`;
const MAINTENANCE_FUNCTIONS = ['ops_ensure_model_index(text, text, integer)', 'ops_analyze_ops_tables()'];

/**
 * Row-level security no longer trusts a setting: the `system_bypass` policies (`app.rls_bypass = on`,
 * which any session of the application role could set) are dropped. Cross-tenant system work runs as
 * `ops_system`, a role with BYPASSRLS that only the system pool logs in as; the sql tool logs in as
 * `ops_sql_tool` (README "Production database roles" creates all of them, as a superuser, once).
 *
 * `ops_system` gets the application role's table privileges directly (a role membership would need
 * ADMIN OPTION, which the owner running migrations does not have). It is created here only when
 * missing and the migrating role may (a superuser: the embedded database, development).
 */
export class SeparateSystemAndSqlToolRoles1795800000000 implements MigrationInterface {
  name = 'SeparateSystemAndSqlToolRoles1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${SYSTEM_ROLE}') THEN
           CREATE ROLE ${SYSTEM_ROLE} NOLOGIN NOSUPERUSER BYPASSRLS NOCREATEDB NOCREATEROLE;
         END IF;
       EXCEPTION
         WHEN duplicate_object OR unique_violation THEN NULL; -- created concurrently by another database's migration
         WHEN insufficient_privilege THEN
           RAISE EXCEPTION 'role ${SYSTEM_ROLE} does not exist: create it as a superuser (README "Production database roles")';
       END $$`,
    );
    await queryRunner.query(`GRANT USAGE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${SYSTEM_ROLE}`,
    );
    await queryRunner.query(`REVOKE ALL ON TABLE public.migrations FROM ${SYSTEM_ROLE}`);
    await queryRunner.query(`GRANT SELECT ON TABLE public.migrations TO ${SYSTEM_ROLE}`);
    await queryRunner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${SYSTEM_ROLE}`);
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SYSTEM_ROLE}`,
    );
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${SYSTEM_ROLE}`,
    );
    for (const fn of MAINTENANCE_FUNCTIONS)
      await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${SYSTEM_ROLE}`);
    for (const table of await tablesWithPolicy(queryRunner, 'system_bypass'))
      await queryRunner.query(`DROP POLICY system_bypass ON "${table}"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of await tablesWithPolicy(queryRunner, 'tenant_isolation')) {
      await queryRunner.query(
        `CREATE POLICY system_bypass ON "${table}" AS PERMISSIVE FOR ALL TO ${APP_ROLE} USING (${BYPASS}) WITH CHECK (${BYPASS})`,
      );
    }
    for (const fn of MAINTENANCE_FUNCTIONS)
      await queryRunner.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM ${SYSTEM_ROLE}`);
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM ${SYSTEM_ROLE}`,
    );
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM ${SYSTEM_ROLE}`,
    );
    await queryRunner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${SYSTEM_ROLE}`);
    await queryRunner.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${SYSTEM_ROLE}`);
    await queryRunner.query(`REVOKE USAGE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
    // The role stays: it is cluster-wide and other databases may use it.
  }
}

async function tablesWithPolicy(queryRunner: QueryRunner, policy: string): Promise<string[]> {
  const rows = (await queryRunner.query(
    `SELECT tablename FROM pg_policies WHERE schemaname = 'public' AND policyname = $1 ORDER BY 1`,
    [policy],
  )) as Array<{ tablename: string }>;
  return rows.map((row) => row.tablename);
}
