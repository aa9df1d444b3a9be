import { CodeModule, DiffApplicationService } from '@app/code';
import { CodeDiffsRepository } from '@app/code/testing';
import { AppException, AuthService } from '@app/platform';
import { DataSource } from 'typeorm';
import { startTestContext, TestContext, testBackend } from '@test/support';

const file = (path: string) => ({ path, status: 'added' as const, after: `export const x = '${path}';\n` });

/**
 * One tenant's diffs cannot starve another's: the claim serves tenants round-robin, a tenant holding
 * its running cap gets no further slot, and a tenant's queued work is capped (429).
 */
describe(`code diff queue fairness (${testBackend()})`, () => {
  let ctx: TestContext;
  let diffs: DiffApplicationService;
  let store: CodeDiffsRepository;
  const tenant = async (slug: string) =>
    (await ctx.get(AuthService).createTenant(`fair-${slug}`, slug, undefined)).tenant.id;
  /** Diffs of `count` repositories (so none waits for an earlier one of its repository). */
  const enqueue = async (tenantId: string, count: number, files = 1) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const view = await diffs.apply(tenantId, {
        userId: 'u',
        repository: `repo-${i}-${Math.random().toString(36).slice(2, 8)}`,
        files: Array.from({ length: files }, (_, f) => file(`src/f${f}.ts`)),
      });
      ids.push(view.diff_id);
    }
    return ids;
  };
  const finishAll = () =>
    ctx.get(DataSource).query(`UPDATE code_diffs SET status = 'done', finished_at = now(), locked_by = NULL
                               WHERE status IN ('queued', 'running')`);

  beforeAll(async () => {
    ctx = await startTestContext([CodeModule], {
      CODE_MAX_QUEUED_DIFFS_PER_TENANT: '3',
      CODE_MAX_QUEUED_FILES_PER_TENANT: '5',
    });
    diffs = ctx.get(DiffApplicationService);
    store = ctx.get(CodeDiffsRepository);
  });
  afterAll(() => ctx?.close());
  afterEach(() => finishAll());

  it('gives no second slot to a tenant at its running cap while another tenant waits', async () => {
    const a = await tenant('a');
    const b = await tenant('b');
    await enqueue(a, 3);
    const [bDiff] = await enqueue(b, 1);
    expect((await store.claim('w1', 60, 1))?.tenantId).toBe(a);
    const second = await store.claim('w2', 60, 1);
    expect(second?.id).toBe(bDiff);
    expect(await store.claim('w3', 60, 1)).toBeNull();
  });

  it('serves tenants round-robin: a later tenant’s diff before the first tenant’s remaining ones', async () => {
    const c = await tenant('c');
    const d = await tenant('d');
    const cDiffs = await enqueue(c, 3);
    const first = await store.claim('w1', 60, 0);
    expect(first?.id).toBe(cDiffs[0]);
    await store.complete(first!.id, 'w1', {
      files_processed: 1,
      embeddings_upserted: 0,
      graph_nodes_updated: 0,
      failed_files: [],
    });
    const [dDiff] = await enqueue(d, 1);
    expect((await store.claim('w1', 60, 0))?.id).toBe(dDiff);
    expect((await store.claim('w1', 60, 0))?.id).toBe(cDiffs[1]);
  });

  it('refuses a diff past the tenant’s queued diffs or files with 429 details, and takes it once some are done', async () => {
    const e = await tenant('e');
    await enqueue(e, 3);
    const refused = await enqueue(e, 1).catch((error: AppException) => error);
    expect(refused).toMatchObject({
      code: 'DIFF_QUEUE_FULL',
      kind: 'RATE_LIMITED',
      details: {
        limit: { key: 'CODE_MAX_QUEUED_DIFFS_PER_TENANT', limit: 3, observed: 4 },
        retry_after_seconds: 30,
      },
    });
    expect((refused as AppException).message).toContain('the limit is 3 (CODE_MAX_QUEUED_DIFFS_PER_TENANT)');
    // Another tenant is not affected by e's queue.
    const f = await tenant('f');
    await enqueue(f, 1, 4);
    await expect(enqueue(f, 1, 2)).rejects.toMatchObject({
      code: 'DIFF_QUEUE_FULL',
      details: { limit: { key: 'CODE_MAX_QUEUED_FILES_PER_TENANT', limit: 5, observed: 6 } },
    });
    await finishAll();
    await expect(enqueue(e, 1)).resolves.toHaveLength(1);
  });
});
