import { DataSource } from 'typeorm';
import { APP_ROLE, AuthService, runAsSystem, runAsTenant, SQL_TOOL_ROLE } from '@app/platform';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentSearchService, DocumentsModule } from '@app/documents';
import { AssistantModule } from '@app/assistant';
import { ToolsModule } from '@app/tools';
import { DemoDataService } from '@app/ops';
import { CodeModule, DiffApplicationService } from '@app/code';
import { startTestContext, TestContext, testBackend } from '@test/support';

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
    // The bypass policy exists only for the application role, never for PUBLIC or the sql tool role.
    const bypass: Array<{ roles: string }> = await db.query(
      `SELECT DISTINCT roles::text AS roles FROM pg_policies WHERE policyname = 'system_bypass'`,
    );
    expect(bypass).toEqual([{ roles: `{${APP_ROLE}}` }]);
    const others: unknown[] = await db.query(
      `SELECT 1 FROM pg_policies WHERE schemaname = 'public' AND policyname NOT IN ('tenant_isolation', 'system_bypass')`,
    );
    expect(others).toEqual([]);
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

  it('without any scope nothing is visible, and a scope cannot be widened by the sql tool role', async () => {
    for (const table of ['documents', 'api_keys', 'ops_configuration_items'])
      expect(Number((await db.query(`SELECT count(*) AS n FROM "${table}"`))[0].n)).toBe(0);
    expect(await db.query(`SELECT * FROM tenants`)).toEqual([]);
    // The sql tool role, even past its guard, reads neither keys nor chunks, and cannot use the bypass.
    await runAsTenant(tenantA, () =>
      db.transaction(async (em) => {
        await em.query(`SET LOCAL ROLE ${SQL_TOOL_ROLE}`);
        expect(
          Number((await em.query(`SELECT count(*) AS n FROM ops_configuration_items`))[0].n),
        ).toBeGreaterThan(0);
        for (const table of ['api_keys', 'document_chunks', 'tenants']) {
          await em.query('SAVEPOINT probe');
          await expect(em.query(`SELECT * FROM "${table}"`)).rejects.toThrow(/permission denied/);
          await em.query('ROLLBACK TO SAVEPOINT probe');
        }
      }),
    );
    await runAsTenant(tenantB, () =>
      db.transaction(async (em) => {
        await em.query(`SELECT set_config('app.rls_bypass', 'on', true)`);
        await em.query(`SET LOCAL ROLE ${SQL_TOOL_ROLE}`);
        // Tenant B's scope with the bypass flag set: the sql tool role still sees none of A's rows.
        expect(
          Number(
            (
              await em.query(`SELECT count(*) AS n FROM ops_configuration_items WHERE tenant_id = $1`, [
                tenantA,
              ])
            )[0].n,
          ),
        ).toBe(0);
      }),
    );
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
