import { DataSource } from 'typeorm';
import {
  APP_ROLE,
  AuthService,
  runAsSystem,
  runAsTenant,
  SQL_TOOL_ROLE,
  SqlToolDatabase,
  SYSTEM_ROLE,
} from '@app/platform';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentSearchService, DocumentsModule } from '@app/documents';
import { AssistantModule } from '@app/assistant';
import { ToolsModule } from '@app/tools';
import { DemoDataService } from '@app/ops';
import { CodeModule, DiffApplicationService } from '@app/code';
import { OWNER_ROLE, startTestContext, TestContext, testBackend } from '@test/support';

const NOW = new Date('2026-03-02T12:00:00Z');

/**
 * Row-level security, checked against the database itself: every table with a tenant_id (found in
 * the catalog, so a new table without a policy fails here), under the application role, with tenant
 * B's scope, neither reads, changes, deletes nor inserts tenant A's rows. Written to fail when a
 * policy is dropped, loosened, or the application role can bypass it.
 */
describe(`row-level security (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;
  let tenantA: string;
  let tenantB: string;
  let tables: string[];

  const asSystem = <T>(fn: () => Promise<T>) => runAsSystem('test: inspect', fn, { quiet: true });
  const countOf = async (table: string, tenantId: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM "${table}" WHERE tenant_id = $1`, [tenantId]))[0].n);
  /** rowCount of an UPDATE/DELETE in a transaction that is rolled back whatever it did. */
  const affected = (sql: string, params: unknown[]) =>
    db
      .transaction(async (em) => {
        const [, count] = await em.query<[unknown, number]>(sql, params);
        throw Object.assign(new Error('rollback'), { count });
      })
      .catch((error: { count?: number }) => {
        if (error.count === undefined) throw error;
        return error.count;
      });

  beforeAll(async () => {
    // The modules, not AppModule.forRoot(): its platform options would be read before the test env is set.
    ctx = await startTestContext([
      DocumentsModule,
      AssetRegistryModule,
      ToolsModule,
      AssistantModule,
      CodeModule,
    ]);
    db = ctx.app.get(DataSource); // the raw data source: no test scoping, the scope is set here
    const auth = ctx.get(AuthService);
    tenantA = (await auth.createTenant('rls-a', 'A', undefined)).tenant.id;
    tenantB = (await auth.createTenant('rls-b', 'B', undefined)).tenant.id;
    // Tenant A's rows in every table: the demo (ops data, assets, runbook documents), a chat, a stage run.
    await ctx.get(DemoDataService).load(tenantA, { scale: 'small', now: NOW, drainDocuments: true });
    // A user's code: a repository, its file, the diff request and the graph's nodes and edges.
    const diffs = ctx.get(DiffApplicationService);
    await diffs.apply(tenantA, {
      userId: 'u',
      files: [
        { path: 'a.ts', status: 'added', after: 'export function f() {\n  g();\n}\nfunction g() {}\n' },
      ],
    });
    await diffs.processQueue();
    await runAsTenant(tenantA, async () => {
      const [conversation] = await db.query(
        `INSERT INTO chat_conversations (tenant_id, user_id, title) VALUES ($1, 'u', 't') RETURNING id`,
        [tenantA],
      );
      await db.query(
        `INSERT INTO chat_messages (tenant_id, conversation_id, position, role, content) VALUES ($1, $2, 0, 'user', 'hi')`,
        [tenantA, conversation.id],
      );
      await db.query(
        `INSERT INTO ops_stage_runs (tenant_id, stage_name, status, user_id, request, started_at)
         VALUES ($1, 's', 'succeeded', 'u', '{}', now())`,
        [tenantA],
      );
      // A stored secret and a pending side-effect action (their services have their own tests).
      await db.query(
        `INSERT INTO tenant_secrets (tenant_id, name, ciphertext, iv, auth_tag, key_id, created_by)
         VALUES ($1, 'S', '\\x00', '\\x00', '\\x00', 'k', 'u')`,
        [tenantA],
      );
      await db.query(
        `INSERT INTO tool_pending_actions (tenant_id, tool, input, status, caller, requested_by, expires_at)
         VALUES ($1, 'post_blog_article', '{}', 'pending', 'agent', 'u', now() + interval '1 hour')`,
        [tenantA],
      );
      // A stored agent run and a webhook delivery of it.
      const [run] = await db.query(
        `INSERT INTO agent_runs (tenant_id, status, mode, user_id, caller_id, caller, prompt, callback_url)
         VALUES ($1, 'succeeded', 'fallback', 'u', 'u', 'api', 'hi', 'https://hooks.example/r') RETURNING id`,
        [tenantA],
      );
      await db.query(
        `INSERT INTO agent_run_deliveries (tenant_id, run_id, event, url, body, status)
         VALUES ($1, $2, 'run.completed', 'https://hooks.example/r', '{}', 'delivered')`,
        [tenantA, run.id],
      );
    });
    tables = (
      await asSystem(() =>
        db.query(
          `SELECT c.table_name FROM information_schema.columns c
             JOIN information_schema.tables t USING (table_schema, table_name)
            WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id' AND t.table_type = 'BASE TABLE'
            ORDER BY 1`,
        ),
      )
    ).map((row: { table_name: string }) => row.table_name);
  }, 180_000);
  afterAll(() => ctx?.close());

  it('finds the tenant-owned tables, each seeded with tenant A rows', async () => {
    expect(tables).toEqual(
      expect.arrayContaining([
        'documents',
        'document_chunks',
        'chunk_embeddings',
        'api_keys',
        'ops_stage_runs',
        'tenant_secrets',
        'tool_pending_actions',
      ]),
    );
    for (const table of tables) {
      // A table this seed does not reach would make the isolation checks below vacuous: seed it.
      expect([table, (await asSystem(() => countOf(table, tenantA))) > 0]).toEqual([table, true]);
    }
  });

  it('the application connects as a role that is not superuser, BYPASSRLS or owner', async () => {
    const [role] = await db.query(
      `SELECT current_user AS name, r.rolsuper, r.rolbypassrls,
              (SELECT count(*) FROM pg_class c WHERE c.relowner = r.oid AND c.relkind = 'r') AS owned
         FROM pg_roles r WHERE r.rolname = current_user`,
    );
    expect(role).toEqual({ name: APP_ROLE, rolsuper: false, rolbypassrls: false, owned: '0' });
  });

  it('every tenant-owned table and tenants has FORCE row-level security and the tenant policy', async () => {
    const rows: Array<{
      relname: string;
      relrowsecurity: boolean;
      relforcerowsecurity: boolean;
      qual: string;
    }> = await db.query(
      `SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, p.qual, p.with_check, p.roles
           FROM pg_class c LEFT JOIN pg_policies p ON p.tablename = c.relname AND p.policyname = 'tenant_isolation'
          WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1)`,
      [[...tables, 'tenants']],
    );
    expect(rows).toHaveLength(tables.length + 1);
    for (const row of rows) {
      expect(row).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true });
      expect(row.qual).toMatch(/current_setting\('app\.tenant_id'::text, true\)/);
    }
    // No policy trusts a setting other than the tenant: there is no bypass switch a session can set.
    const others: unknown[] = await db.query(
      `SELECT policyname, tablename FROM pg_policies WHERE schemaname = 'public' AND policyname <> 'tenant_isolation'`,
    );
    expect(others).toEqual([]);
  });

  it('the application role, setting every setting it can, still reads no other tenant', async () => {
    // In a transaction that is rolled back, so the pooled connection keeps none of it.
    const seen = await runAsTenant(tenantB, () =>
      db
        .transaction(async (em) => {
          const probe = async (sql: string) => {
            await em.query('SAVEPOINT probe');
            const outcome = await em.query(sql).then(
              () => 'ok',
              (error: Error) => error.message,
            );
            await em.query('ROLLBACK TO SAVEPOINT probe');
            return outcome;
          };
          for (const setting of ['app.rls_bypass', 'app.bypass', 'app.system', 'app.role'])
            await em.query(`SELECT set_config($1, 'on', false)`, [setting]);
          // Off for a role under row-level security means "fail rather than filter": nothing leaks.
          expect(await probe(`SET row_security = off; SELECT count(*) FROM documents`)).toMatch(
            /row-level security/,
          );
          if (testBackend() === 'native') {
            // The login role cannot become another (embedded: one superuser session, SECURITY.md).
            for (const role of [SYSTEM_ROLE, OWNER_ROLE, 'postgres'])
              expect(await probe(`SET ROLE ${role}`)).toMatch(/permission denied/);
            expect(await probe(`SET SESSION AUTHORIZATION ${SYSTEM_ROLE}`)).toMatch(/permission denied/);
            expect(await probe(`RESET ROLE; SELECT 1`)).toBe('ok');
            expect((await em.query(`SELECT current_user AS name`))[0].name).toBe(APP_ROLE);
          }
          const counts: Array<[string, number]> = [];
          for (const table of tables)
            counts.push([
              table,
              Number(
                (await em.query(`SELECT count(*) AS n FROM "${table}" WHERE tenant_id = $1`, [tenantA]))[0].n,
              ),
            ]);
          throw Object.assign(new Error('rollback'), { counts });
        })
        .catch((error: { counts?: Array<[string, number]> }) => {
          if (!error.counts) throw error;
          return error.counts;
        }),
    );
    expect(seen).toEqual(tables.map((table) => [table, 0]));
  });

  it('system work runs as the BYPASSRLS system role, request work never does', async () => {
    const roleOf = async () => {
      const [row] = await db.query(
        `SELECT current_user AS name, r.rolbypassrls AS bypasses FROM pg_roles r WHERE r.rolname = current_user`,
      );
      return row as { name: string; bypasses: boolean };
    };
    expect(await asSystem(roleOf)).toEqual({ name: SYSTEM_ROLE, bypasses: true });
    expect(await runAsTenant(tenantB, roleOf)).toEqual({ name: APP_ROLE, bypasses: false });
    expect(await roleOf()).toEqual({ name: APP_ROLE, bypasses: false });
    // ... and sees every tenant's rows.
    expect(await asSystem(() => countOf('documents', tenantA))).toBeGreaterThan(0);
  });

  it('native: the sql tool logs in as its own role, which cannot become another one', async () => {
    const sqlTool = ctx.get(SqlToolDatabase);
    if (testBackend() === 'embedded') {
      // One superuser session: the sql tool's transaction switches role, its guard is the wall.
      expect(sqlTool.switchToRole).toBe(SQL_TOOL_ROLE);
      return;
    }
    expect(sqlTool.switchToRole).toBeNull();
    const runner = sqlTool.dataSource.createQueryRunner();
    await runner.connect();
    const probe = async (sql: string) => {
      await runner.query('SAVEPOINT probe');
      const outcome = await runner.query(sql).then(
        () => 'ok',
        (error: Error) => error.message,
      );
      await runner.query('ROLLBACK TO SAVEPOINT probe');
      return outcome;
    };
    try {
      await runner.startTransaction();
      await runner.query(
        `SELECT set_config('app.tenant_id', $1, true), set_config('app.rls_bypass', 'on', true)`,
        [tenantB],
      );
      await runner.query('RESET ROLE');
      expect(await runner.query(`SELECT session_user AS login, current_user AS name`)).toEqual([
        { login: SQL_TOOL_ROLE, name: SQL_TOOL_ROLE },
      ]);
      for (const role of [APP_ROLE, SYSTEM_ROLE, OWNER_ROLE, 'postgres'])
        expect(await probe(`SET ROLE ${role}`)).toMatch(/permission denied/);
      expect(await probe(`SET SESSION AUTHORIZATION ${APP_ROLE}`)).toMatch(/permission denied/);
      const memberOf: unknown[] = await runner.query(
        `SELECT roleid::regrole::text FROM pg_auth_members WHERE member = $1::regrole`,
        [SQL_TOOL_ROLE],
      );
      expect(memberOf).toEqual([]);
      expect(
        Number(
          (
            await runner.query(`SELECT count(*) AS n FROM ops_configuration_items WHERE tenant_id = $1`, [
              tenantA,
            ])
          )[0].n,
        ),
      ).toBe(0);
      for (const table of ['api_keys', 'document_chunks', 'tenants'])
        expect(await probe(`SELECT * FROM "${table}"`)).toMatch(/permission denied/);
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  });

  it('as tenant B, raw SQL on every table sees, updates and deletes none of tenant A rows', async () => {
    await runAsTenant(tenantB, async () => {
      for (const table of tables) {
        expect([table, await countOf(table, tenantA)]).toEqual([table, 0]);
        expect([
          table,
          await affected(`UPDATE "${table}" SET tenant_id = tenant_id WHERE tenant_id = $1`, [tenantA]),
        ]).toEqual([table, 0]);
        expect([table, await affected(`DELETE FROM "${table}" WHERE tenant_id = $1`, [tenantA])]).toEqual([
          table,
          0,
        ]);
      }
      expect(await db.query(`SELECT id FROM tenants WHERE id = $1`, [tenantA])).toEqual([]);
    });
    // ... and the rows are all still there.
    for (const table of tables) expect(await asSystem(() => countOf(table, tenantA))).toBeGreaterThan(0);
  });

  it('as tenant B, inserting a row that carries tenant A id is refused on every table', async () => {
    for (const table of tables) {
      const [row] = await asSystem(() =>
        db.query(`SELECT to_jsonb(t) AS row FROM "${table}" t WHERE tenant_id = $1 LIMIT 1`, [tenantA]),
      );
      await expect(
        runAsTenant(tenantB, () =>
          db.query(`INSERT INTO "${table}" SELECT * FROM jsonb_populate_record(NULL::"${table}", $1)`, [
            row.row,
          ]),
        ),
      ).rejects.toThrow(/row-level security/);
    }
  });

  it('without any scope nothing is visible', async () => {
    for (const table of ['documents', 'api_keys', 'ops_configuration_items'])
      expect(Number((await db.query(`SELECT count(*) AS n FROM "${table}"`))[0].n)).toBe(0);
    expect(await db.query(`SELECT * FROM tenants`)).toEqual([]);
  });

  it('through the repositories, tenant B finds none of tenant A documents, keys or chats', async () => {
    const search = await runAsTenant(tenantB, () =>
      ctx.app
        .get(DocumentSearchService)
        .search(tenantA, { query: 'runbook restart', search_type: 'text', top_k: 5 }),
    );
    expect(search.results).toEqual([]);
    const keys = await runAsTenant(tenantB, () =>
      ctx.app
        .get(AuthService)
        .listKeys(tenantA)
        .catch(() => []),
    );
    expect(keys).toEqual([]);
    const revoked = await runAsTenant(tenantB, async () => {
      const [key] = await asSystem(() => db.query(`SELECT id FROM api_keys WHERE tenant_id = $1`, [tenantA]));
      return ctx.app
        .get(AuthService)
        .revokeKey(key.id as string, tenantA)
        .catch((error: Error) => error.message);
    });
    expect(revoked).toMatch(/not found/);
  });
});
