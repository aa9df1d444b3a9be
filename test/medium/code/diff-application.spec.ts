import { randomUUID } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { CodeModule, CodeQueryService, DiffApplicationService, type DiffView } from '@app/code';
import { DocumentIngestionService, DocumentSearchService } from '@app/documents';
import { AuthService } from '@app/platform';
import { ToolContext, ToolRegistry, ToolsModule } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';

const CRYPTO = `/** Hashes a password. */
export function hashPassword(password: string): string {
  return digest(password);
}

function digest(value: string): string {
  return value.split('').reverse().join('');
}
`;

const AUTH = `import {hashPassword} from './crypto.js';

/** Checks a user's password: the authentication logic. */
export function authenticate(user: {hash: string}, password: string): boolean {
  const hashed = hashPassword(password);
  return compare(hashed, user.hash);
}

function compare(a: string, b: string): boolean {
  return a === b;
}
`;

const SESSION = `import {authenticate} from './auth.js';

class Base {}

export class Session extends Base {
  login(user: {hash: string}, password: string): boolean {
    this.touch();
    return authenticate(user, password);
  }

  touch(): void {}
}
`;

const toolContext = (tenantId: string, userId: string): ToolContext => ({
  tenantId,
  userId,
  requestId: randomUUID(),
  traceId: 'trace',
  deadline: Date.now() + 30_000,
  signal: new AbortController().signal,
  caller: 'agent',
});

describe(`code diffs, graph and search (${testBackend()})`, () => {
  let ctx: TestContext;
  let diffs: DiffApplicationService;
  let code: CodeQueryService;
  let tenantA: string;
  let tenantB: string;

  const applyAndWait = async (tenantId: string, request: Parameters<DiffApplicationService['apply']>[1]) => {
    const diff = await diffs.apply(tenantId, request);
    return diffs.waitFor(tenantId, diff.diff_id, 30_000);
  };
  const symbolNamed = async (tenantId: string, userId: string, name: string) => {
    const [repository] = await code.listRepositories(tenantId, userId);
    const symbols = await code.symbols(tenantId, repository.id, name, 10);
    const symbol = symbols.find((s) => s.qualified_name === name);
    if (!symbol) throw new Error(`no symbol ${name}`);
    return code.symbol(tenantId, symbol.id);
  };
  const fileText = async (tenantId: string, userId: string, path: string) => {
    const [repository] = await code.listRepositories(tenantId, userId);
    const [file] = await code.files(tenantId, repository.id, path, 1).catch(() => []);
    return file?.text ?? null;
  };

  beforeAll(async () => {
    ctx = await startTestContext([CodeModule, ToolsModule]);
    diffs = ctx.get(DiffApplicationService);
    code = ctx.get(CodeQueryService);
    const auth = ctx.get(AuthService);
    tenantA = (await auth.createTenant('code-a', 'A', undefined)).tenant.id;
    tenantB = (await auth.createTenant('code-b', 'B', undefined)).tenant.id;
  });
  afterAll(() => ctx?.close());

  it('stores and queues added files in one step (202 queued), then indexes them', async () => {
    const queued = await diffs.apply(tenantA, {
      userId: 'alice',
      commit: 'c1',
      files: [
        { path: 'src/crypto.ts', status: 'added', after: CRYPTO },
        { path: 'src/auth.ts', status: 'added', after: AUTH },
        { path: 'src/session.ts', status: 'added', after: SESSION },
      ],
    });
    expect(queued).toMatchObject({
      status: 'queued',
      changed_files: ['src/crypto.ts', 'src/auth.ts', 'src/session.ts'],
    });
    const done = await diffs.waitFor(tenantA, queued.diff_id, 30_000);
    expect(done).toMatchObject({ status: 'done', files_processed: 3, failed_files: [] });
    expect(done.graph_nodes_updated).toBeGreaterThanOrEqual(3 + 7);
    expect(done.embeddings_upserted).toBe(8);
  });

  it('builds CALLS, IMPORTS, CONTAINS and EXTENDS edges for the fixture', async () => {
    const authenticate = await symbolNamed(tenantA, 'alice', 'authenticate');
    expect(authenticate).toMatchObject({ kind: 'Function', path: 'src/auth.ts', start_line: 4, end_line: 7 });
    expect(authenticate.doc_comment).toBe("Checks a user's password: the authentication logic.");
    expect(authenticate.callees.map((c) => [c.symbol?.qualified_name, c.symbol?.path])).toEqual([
      ['hashPassword', 'src/crypto.ts'],
      ['compare', 'src/auth.ts'],
    ]);
    expect(authenticate.callers.map((c) => c.symbol?.qualified_name)).toEqual(['Session.login']);
    expect(authenticate.imports).toEqual(['src/crypto.ts']);
    const session = await symbolNamed(tenantA, 'alice', 'Session');
    expect(session.extends).toEqual(['Base']);
    const login = await symbolNamed(tenantA, 'alice', 'Session.login');
    expect(login.callees.map((c) => c.symbol?.qualified_name).sort()).toEqual([
      'Session.touch',
      'authenticate',
    ]);
    const deep = await code.symbol(tenantA, login.id, 3);
    expect(deep.callees.map((c) => [c.symbol?.qualified_name ?? c.name, c.depth])).toEqual(
      expect.arrayContaining([
        ['digest', 3],
        ['hashPassword', 2],
      ]),
    );
  });

  it('replaces a modified file’s nodes and edges', async () => {
    const after = AUTH.replace('return compare(hashed, user.hash);', 'return hashed === user.hash;');
    const done = await applyAndWait(tenantA, {
      userId: 'alice',
      files: [{ path: 'src/auth.ts', status: 'modified', before: AUTH, after }],
    });
    expect(done).toMatchObject({ status: 'done', files_processed: 1 });
    const authenticate = await symbolNamed(tenantA, 'alice', 'authenticate');
    expect(authenticate.callees.map((c) => c.symbol?.qualified_name)).toEqual(['hashPassword']);
    expect(authenticate.callers.map((c) => c.symbol?.qualified_name)).toEqual(['Session.login']);
    await applyAndWait(tenantA, {
      userId: 'alice',
      files: [{ path: 'src/auth.ts', status: 'modified', after: AUTH }],
    });
  });

  it('follows a renamed file: the import breaks, the call resolves by its unique name', async () => {
    const done = await applyAndWait(tenantA, {
      userId: 'alice',
      files: [{ path: 'src/hashing.ts', old_path: 'src/crypto.ts', status: 'renamed' }],
    });
    expect(done.changed_files).toEqual(['src/crypto.ts', 'src/hashing.ts']);
    expect(await fileText(tenantA, 'alice', 'src/crypto.ts')).toBeNull();
    expect(await fileText(tenantA, 'alice', 'src/hashing.ts')).toBe(CRYPTO);
    const authenticate = await symbolNamed(tenantA, 'alice', 'authenticate');
    expect(authenticate.callees.map((c) => [c.symbol?.qualified_name, c.symbol?.path])).toEqual([
      ['hashPassword', 'src/hashing.ts'],
      ['compare', 'src/auth.ts'],
    ]);
    expect(authenticate.imports).toEqual(['./crypto.js']);
  });

  it('applies a unified diff to the stored texts, and replaying it changes nothing', async () => {
    const after = AUTH.replace(
      'const hashed = hashPassword(password);',
      'const hashed = hashPassword(password.trim());',
    );
    const unified = createTwoFilesPatch('a/src/auth.ts', 'b/src/auth.ts', AUTH, after);
    const first = await applyAndWait(tenantA, { userId: 'alice', unified });
    expect(first).toMatchObject({ status: 'done', changed_files: ['src/auth.ts'], files_processed: 1 });
    expect(await fileText(tenantA, 'alice', 'src/auth.ts')).toBe(after);
    const again = await diffs.apply(tenantA, { userId: 'alice', unified });
    expect(again).toMatchObject({ status: 'done', changed_files: [], files_processed: 0 });
    expect(await fileText(tenantA, 'alice', 'src/auth.ts')).toBe(after);
  });

  it('is idempotent for whole-text changes: the same files again change nothing', async () => {
    const request = {
      userId: 'alice',
      files: [{ path: 'src/session.ts', status: 'modified' as const, after: SESSION }],
    };
    const again: DiffView = await diffs.apply(tenantA, request);
    expect(again).toMatchObject({ status: 'done', changed_files: [] });
  });

  it('refuses a hunk that does not apply with 409 naming file and hunk, and applies nothing of the diff', async () => {
    const good = createTwoFilesPatch(
      'a/src/session.ts',
      'b/src/session.ts',
      SESSION,
      SESSION.replace('touch(): void {}', 'touch(): void { return; }'),
    );
    const bad = createTwoFilesPatch(
      'a/src/auth.ts',
      'b/src/auth.ts',
      'something else\nentirely\n',
      'changed\n',
    );
    await expect(diffs.apply(tenantA, { userId: 'alice', unified: `${good}\n${bad}` })).rejects.toMatchObject(
      {
        code: 'HUNK_DOES_NOT_APPLY',
        kind: 'CONFLICT',
        details: { file: 'src/auth.ts', hunk: 1 },
      },
    );
    expect(await fileText(tenantA, 'alice', 'src/session.ts')).toBe(SESSION);
  });

  it('refuses a change whose "before" is not the stored text (a concurrent edit) with 409, applying nothing', async () => {
    const mine = SESSION.replace('touch(): void {}', 'touch(): void { /* mine */ }');
    const theirs = SESSION.replace('touch(): void {}', 'touch(): void { /* theirs */ }');
    const first = {
      userId: 'alice',
      files: [{ path: 'src/session.ts', status: 'modified' as const, before: SESSION, after: mine }],
    };
    expect(await applyAndWait(tenantA, first)).toMatchObject({
      status: 'done',
      changed_files: ['src/session.ts'],
    });
    await expect(
      diffs.apply(tenantA, {
        userId: 'alice',
        files: [
          { path: 'src/extra.ts', status: 'added', after: 'export const extra = 1;\n' },
          { path: 'src/session.ts', status: 'modified', before: SESSION, after: theirs },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'BEFORE_DOES_NOT_MATCH',
      kind: 'CONFLICT',
      details: { file: 'src/session.ts' },
    });
    expect(await fileText(tenantA, 'alice', 'src/session.ts')).toBe(mine);
    expect(await fileText(tenantA, 'alice', 'src/extra.ts')).toBeNull();
    expect(await diffs.apply(tenantA, first)).toMatchObject({ status: 'done', changed_files: [] });
    await applyAndWait(tenantA, {
      userId: 'alice',
      files: [{ path: 'src/session.ts', status: 'modified', before: mine, after: SESSION }],
    });
  });

  it('refuses a file over the size limit with 413 and the limit', async () => {
    await expect(
      diffs.apply(tenantA, {
        userId: 'alice',
        files: [{ path: 'big.ts', status: 'added', after: 'x'.repeat(1024 * 1024 + 1) }],
      }),
    ).rejects.toMatchObject({
      code: 'DIFF_TOO_LARGE',
      kind: 'PAYLOAD_TOO_LARGE',
      details: { limit: { key: 'CODE_MAX_FILE_BYTES' } },
    });
  });

  it('finds code through search_vector_db and search_graph_db for its user only', async () => {
    await ctx.get(DocumentIngestionService).processQueue();
    const registry = ctx.get(ToolRegistry);
    const vector = await registry.execute(toolContext(tenantA, 'alice'), 'search_vector_db', {
      query: 'authentication logic password',
      top_k: 5,
    });
    expect(vector.success).toBe(true);
    const hits = (
      vector.data as { results: Array<{ file: string; symbol: string | null; start_line: number }> }
    ).results;
    expect(hits[0]).toMatchObject({ file: 'src/auth.ts', symbol: 'authenticate', start_line: 4 });

    const graph = await registry.execute(toolContext(tenantA, 'alice'), 'search_graph_db', {
      query: 'authenticate',
    });
    expect(graph.success).toBe(true);
    const [entity] = (
      graph.data as { results: Array<{ entity_name: string; calls: string[]; called_by: string[] }> }
    ).results;
    expect(entity.entity_name).toBe('authenticate');
    // password.trim() is read off a parameter: kept as an unresolved call by name, never guessed.
    expect(entity.calls).toEqual(['hashPassword (src/hashing.ts:2)', 'trim', 'compare (src/auth.ts:9)']);
    expect(entity.called_by).toEqual(['Session.login (src/session.ts:6)']);

    const identifiers = await registry.execute(toolContext(tenantA, 'alice'), 'search_vector_db', {
      query: 'hash password',
    });
    expect(
      (identifiers.data as { results: Array<{ symbol: string }> }).results.map((r) => r.symbol),
    ).toContain('hashPassword');

    const callers = await registry.execute(toolContext(tenantA, 'alice'), 'code_graph', {
      operation: 'impact',
      symbol: 'digest',
    });
    expect((callers.data as { results: Array<{ name: string }> }).results.map((r) => r.name)).toEqual(
      expect.arrayContaining(['hashPassword', 'authenticate', 'Session.login']),
    );
  });

  it('shows nothing to another user of the tenant or to another tenant', async () => {
    const registry = ctx.get(ToolRegistry);
    for (const [tenantId, userId] of [
      [tenantA, 'bob'],
      [tenantB, 'alice'],
    ]) {
      const vector = await registry.execute(toolContext(tenantId, userId), 'search_vector_db', {
        query: 'authenticate password',
      });
      expect((vector.data as { count: number }).count).toBe(0);
      const graph = await registry.execute(toolContext(tenantId, userId), 'search_graph_db', {
        query: 'authenticate',
      });
      expect((graph.data as { count: number }).count).toBe(0);
    }
    expect(await code.listRepositories(tenantB, null)).toEqual([]);
    const authenticate = await symbolNamed(tenantA, 'alice', 'authenticate');
    await expect(code.symbol(tenantB, authenticate.id)).rejects.toMatchObject({ code: 'SYMBOL_NOT_FOUND' });
    const [repository] = await code.listRepositories(tenantA, 'alice');
    await expect(code.files(tenantB, repository.id, null, 10)).rejects.toMatchObject({
      code: 'REPOSITORY_NOT_FOUND',
    });
  });

  it("keeps a user's code out of the tenant's document search and the document_search tool", async () => {
    const search = ctx.get(DocumentSearchService);
    // Alice's own code search finds it; a plain search of the tenant, even one asking for code, does not.
    const own = await search.search(tenantA, { query: 'authenticate password' }, { codeOwner: 'alice' });
    expect(own.results.length).toBeGreaterThan(0);
    for (const filters of [
      {},
      { metadata: { source: 'code' } },
      { metadata: { source: 'code', user_id: 'alice' } },
    ]) {
      const other = await search.search(tenantA, { query: 'authenticate password', filters });
      expect(other.results).toEqual([]);
    }
    const tool = await ctx.get(ToolRegistry).execute(toolContext(tenantA, 'bob'), 'document_search', {
      query: 'authenticate password',
    });
    expect(tool.success).toBe(true);
    expect((tool.data as { count: number }).count).toBe(0);
    // Nor does the tenant's document list name them.
    const listed = await ctx.get(DocumentIngestionService).list(tenantA, { limit: 100 });
    expect(listed.items.filter((d) => d.filename.startsWith('code/'))).toEqual([]);
  });

  it('removes a deleted file’s nodes and chunks; its callers lose the edge but keep the name', async () => {
    const done = await applyAndWait(tenantA, {
      userId: 'alice',
      files: [{ path: 'src/session.ts', status: 'deleted' }],
    });
    expect(done).toMatchObject({ status: 'done', files_processed: 1 });
    const authenticate = await symbolNamed(tenantA, 'alice', 'authenticate');
    expect(authenticate.callers).toEqual([]);
    const [repository] = await code.listRepositories(tenantA, 'alice');
    expect((await code.symbols(tenantA, repository.id, 'Session', 10)).length).toBe(0);
    await ctx.get(DocumentIngestionService).processQueue();
    const vector = await ctx
      .get(ToolRegistry)
      .execute(toolContext(tenantA, 'alice'), 'search_vector_db', { query: 'session login' });
    expect((vector.data as { results: Array<{ file: string }> }).results.map((r) => r.file)).not.toContain(
      'src/session.ts',
    );
  });
});
