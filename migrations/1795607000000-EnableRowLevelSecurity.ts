import { MigrationInterface, QueryRunner } from 'typeorm';

/** The role the application connects as (native) or switches to (embedded). */
export const APP_ROLE = 'ops_app';
/** The role the sql tool's connections log in as (native) or switch to (embedded): it reads the four OPS tables, nothing else. */
export const SQL_TOOL_ROLE = 'ops_sql_tool';
/** The tables an sql tool's CTEs read (see SQL_TOOL_RELATIONS in the tools lib). */
export const SQL_TOOL_TABLES = [
  'ops_configuration_items',
  'ops_metric_samples',
  'ops_history_events',
  'ops_ci_relations',
];

// Scalar subqueries, so each becomes an InitPlan evaluated once per statement instead of a
// current_setting() call per row (measured: 50k-row aggregate 33 ms -> see docs/notes/rls.md).
const TENANT_MATCH = `(SELECT nullif(current_setting('app.tenant_id', true), '')::uuid)`;
const BYPASS = `(SELECT current_setting('app.rls_bypass', true)) = 'on'`;

/**
 * Row-level security on every tenant-owned table (every table with a `tenant_id`, found in the
 * catalog so none is forgotten) and on `tenants`. The tenant comes from `app.tenant_id`, which the
 * application sets on each pooled connection from the request context. Two permissive policies:
 * `tenant_isolation` for every role, and `system_bypass` (`app.rls_bypass = on`) for the application
 * role only, so the sql tool role can never use the bypass even if a query of its own set the flag.
 * FORCE applies the policies to the owner too; superusers still bypass them, so migrations do.
 *
 * The roles are cluster-wide: they are created NOLOGIN here when missing (an operator grants LOGIN
 * and a password, see docs), so the grants below always have a grantee.
 */
export class EnableRowLevelSecurity1795607000000 implements MigrationInterface {
  name = 'EnableRowLevelSecurity1795607000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const role of [APP_ROLE, SQL_TOOL_ROLE]) {
      await queryRunner.query(
        `DO $$ BEGIN
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
             CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
           END IF;
         EXCEPTION WHEN duplicate_object THEN NULL; -- created concurrently by another database's migration
         END $$`,
      );
    }
    // No role membership is granted here: granting one needs ADMIN OPTION (PG16) or CREATEROLE, which the
    // owner of a production database does not have (README "Production database roles"). The sql tool
    // logs in as its own role on the native server (SeparateSystemAndSqlToolRoles1795800000000).
    await queryRunner.query(`GRANT USAGE ON SCHEMA public TO ${APP_ROLE}, ${SQL_TOOL_ROLE}`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${APP_ROLE}`,
    );
    // The application may see which migrations ran, never change them.
    await queryRunner.query(`REVOKE ALL ON TABLE public.migrations FROM ${APP_ROLE}`);
    await queryRunner.query(`GRANT SELECT ON TABLE public.migrations TO ${APP_ROLE}`);
    await queryRunner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE}`);
    // Tables created by later migrations (run by the same owner) are granted the same way.
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${APP_ROLE}`,
    );
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${APP_ROLE}`,
    );
    await queryRunner.query(
      `GRANT SELECT ON ${SQL_TOOL_TABLES.map((t) => `public.${t}`).join(', ')} TO ${SQL_TOOL_ROLE}`,
    );

    await createMaintenanceFunctions(queryRunner);

    for (const table of await tenantOwnedTables(queryRunner)) {
      await enableTableSecurity(queryRunner, table, `tenant_id = ${TENANT_MATCH}`);
    }
    await enableTableSecurity(queryRunner, 'tenants', `id = ${TENANT_MATCH}`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [...(await tenantOwnedTables(queryRunner)), 'tenants']) {
      await queryRunner.query(`DROP POLICY IF EXISTS tenant_isolation ON "${table}"`);
      await queryRunner.query(`DROP POLICY IF EXISTS system_bypass ON "${table}"`);
      await queryRunner.query(`ALTER TABLE "${table}" NO FORCE ROW LEVEL SECURITY`);
      await queryRunner.query(`ALTER TABLE "${table}" DISABLE ROW LEVEL SECURITY`);
    }
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM ${APP_ROLE}`,
    );
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM ${APP_ROLE}`,
    );
    await queryRunner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${APP_ROLE}, ${SQL_TOOL_ROLE}`);
    await queryRunner.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${APP_ROLE}`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ops_ensure_model_index(text, text, integer)`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ops_analyze_ops_tables()`);
    // The roles stay: they are cluster-wide and other databases may use them.
  }
}

/**
 * The two pieces of DDL/maintenance the application runs after migrations, as the owner: a partial
 * HNSW index per embedding model met at run time, and ANALYZE after a demo load (a non-owner's
 * ANALYZE is skipped). SECURITY DEFINER with fixed bodies and validated arguments, executable by the
 * application role only.
 */
async function createMaintenanceFunctions(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(
    `CREATE OR REPLACE FUNCTION ops_ensure_model_index(index_name text, model text, dimensions integer)
     RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
     BEGIN
       IF index_name !~ '^IDX_chunk_embeddings_hnsw_[a-z0-9_]{0,30}_[0-9a-f]{8}$' THEN
         RAISE EXCEPTION 'invalid index name %', index_name;
       END IF;
       IF dimensions IS NULL OR dimensions < 1 OR dimensions > 2000 THEN
         RAISE EXCEPTION 'HNSW indexes support 1-2000 dimensions, got %', dimensions;
       END IF;
       EXECUTE format(
         'CREATE INDEX IF NOT EXISTS %I ON chunk_embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model = %L',
         index_name, dimensions, model);
     END $fn$`,
  );
  await queryRunner.query(
    `CREATE OR REPLACE FUNCTION ops_analyze_ops_tables()
     RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_catalog AS $fn$
     BEGIN
       ANALYZE ops_configuration_items, ops_metric_samples, ops_history_events, ops_ci_relations;
     END $fn$`,
  );
  for (const fn of ['ops_ensure_model_index(text, text, integer)', 'ops_analyze_ops_tables()']) {
    await queryRunner.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC`);
    await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${APP_ROLE}`);
  }
}

async function tenantOwnedTables(queryRunner: QueryRunner): Promise<string[]> {
  const rows = (await queryRunner.query(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id' AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name`,
  )) as Array<{ table_name: string }>;
  return rows.map((row) => row.table_name);
}

async function enableTableSecurity(queryRunner: QueryRunner, table: string, match: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY`);
  await queryRunner.query(`ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY`);
  await queryRunner.query(
    `CREATE POLICY tenant_isolation ON "${table}" AS PERMISSIVE FOR ALL TO PUBLIC USING (${match}) WITH CHECK (${match})`,
  );
  await queryRunner.query(
    `CREATE POLICY system_bypass ON "${table}" AS PERMISSIVE FOR ALL TO ${APP_ROLE} USING (${BYPASS}) WITH CHECK (${BYPASS})`,
  );
}
