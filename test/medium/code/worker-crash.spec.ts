import { CodeGraphStore, CodeModule, CodeQueryService, DiffApplicationService } from '@app/code';
import { CodeIndexerService, CodeDiffsRepository } from '@app/code/testing';
import { AuthService, runAsTenant } from '@app/platform';
import { DataSource } from 'typeorm';
import { sleep, startTestContext, TestContext, testBackend } from '@test/support';

const FILES = [
  {
    path: 'src/a.ts',
    status: 'added' as const,
    after: "import {b} from './b.js';\nexport function a() {\n  return b();\n}\n",
  },
  {
    path: 'src/b.ts',
    status: 'added' as const,
    after: "import {c} from './c.js';\nexport function b() {\n  return c();\n}\n",
  },
  { path: 'src/c.ts', status: 'added' as const, after: 'export function c() {\n  return 1;\n}\n' },
];

/**
 * A worker that dies mid-diff (claimed, one file indexed, then nothing: SIGKILL) leaves a lease
 * that expires; the next worker reclaims the diff and ends in the same graph as a clean run.
 */
describe(`code diff worker crash recovery (${testBackend()})`, () => {
  let ctx: TestContext;
  let crashed: string;
  let clean: string;

  beforeAll(async () => {
    ctx = await startTestContext([CodeModule], {
      CODE_DIFF_LEASE_SECONDS: '2',
      CODE_DIFF_RETRY_SECONDS: '1',
    });
    const auth = ctx.get(AuthService);
    crashed = (await auth.createTenant('code-crash', 'crash', undefined)).tenant.id;
    clean = (await auth.createTenant('code-clean', 'clean', undefined)).tenant.id;
  });
  afterAll(() => ctx?.close());

  const snapshot = async (tenantId: string) => {
    const [repository] = await ctx.get(CodeQueryService).listRepositories(tenantId, 'u');
    // The raw store: the test scoping would take the repository id for a tenant id.
    const edges = await runAsTenant(tenantId, () =>
      ctx.app.get(CodeGraphStore).edgesOf(repository.id, ['CALLS', 'IMPORTS', 'CONTAINS']),
    );
    return edges
      .map((e) => `${e.kind} ${e.source_path}:${e.line} -> ${e.target_path}#${e.target_name} ${e.resolved}`)
      .sort();
  };

  it('reclaims an abandoned diff after its lease and converges to the clean graph', async () => {
    const diffs = ctx.get(DiffApplicationService);
    await diffs.apply(clean, { userId: 'u', files: FILES });
    await diffs.processQueue();

    const queued = await diffs.apply(crashed, { userId: 'u', files: FILES });
    const store = ctx.get(CodeDiffsRepository);
    const claimed = await store.claim('dead-worker', 2);
    expect(claimed?.id).toBe(queued.diff_id);
    await ctx.get(CodeIndexerService).indexDiff({ ...claimed!, paths: claimed!.paths.slice(0, 1) });
    expect((await diffs.get(crashed, queued.diff_id)).status).toBe('running');
    expect(await diffs.processQueue()).toBe(0);

    await sleep(2500);
    expect(await diffs.processQueue()).toBe(1);
    const done = await diffs.get(crashed, queued.diff_id);
    expect(done).toMatchObject({ status: 'done', attempts: 2, files_processed: 3, failed_files: [] });
    expect(await snapshot(crashed)).toEqual(await snapshot(clean));
    expect((await snapshot(clean)).filter((e) => e.startsWith('CALLS'))).toEqual([
      'CALLS src/a.ts:3 -> src/b.ts#b true',
      'CALLS src/b.ts:3 -> src/c.ts#c true',
    ]);
  });

  it('queues files left unindexed again (the seed’s WAL recovery), one diff per repository', async () => {
    const diffs = ctx.get(DiffApplicationService);
    const code = ctx.get(CodeQueryService);
    const [repository] = await code.listRepositories(clean, 'u');
    await runAsTenant(clean, () =>
      ctx.app.get(DataSource).query(`UPDATE code_files SET indexed_hash = NULL WHERE path = 'src/b.ts'`),
    );
    const unindexed = async () =>
      (await code.files(clean, repository.id, null, 10)).filter((f) => !f.indexed).map((f) => f.path);
    expect(await unindexed()).toEqual(['src/b.ts']);
    await sleep(1200);
    expect(await diffs.recoverUnindexed()).toBe(1);
    expect(await diffs.recoverUnindexed()).toBe(0);
    expect(await diffs.processQueue()).toBe(1);
    expect(await unindexed()).toEqual([]);
  });
});
