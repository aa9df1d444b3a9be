import { CodeModule, DiffApplicationService } from '@app/code';
import { CodeDiffsRepository } from '@app/code/testing';
import { DocumentIngestionService } from '@app/documents';
import { JobsRepository } from '@app/documents/testing';
import { AuthService, JobQueue, runAsSystem } from '@app/platform';
import { DataSource } from 'typeorm';
import { startTestContext, TestContext, testBackend } from '@test/support';

/** The columns every table of the one job queue has (JobQueueTable). */
const QUEUE_COLUMNS = [
  'id',
  'tenant_id',
  'status',
  'attempts',
  'max_attempts',
  'run_after',
  'locked_by',
  'lease_expires_at',
  'heartbeat_at',
  'claimed_at',
  'error',
  'created_at',
  'updated_at',
  'finished_at',
];

interface Kind {
  table: 'document_jobs' | 'code_diffs';
  queue: () => JobQueue;
  enqueue: () => Promise<string>;
}

/**
 * The one job queue's SQL, on both of its tables (document jobs, code diffs): one set of columns, a
 * lease only its holder renews and another worker takes over once expired, a retry that keeps its
 * error, recovery of a job whose worker died on its last attempt, an error a failed job cannot lose,
 * and one cleanup.
 */
describe(`one job queue (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;
  let tenantId: string;
  const system = <T>(work: () => Promise<T>) => runAsSystem('test: job queue', work, { quiet: true });
  const query = <T = Array<Record<string, unknown>>>(sql: string, params: unknown[] = []) =>
    system(() => db.query<T>(sql, params));

  const kinds: Kind[] = [
    {
      table: 'document_jobs',
      queue: () => ctx.app.get(JobsRepository).queue,
      enqueue: async () => {
        const filename = `doc-${Math.random().toString(36).slice(2, 10)}.md`;
        const document = await ctx
          .get(DocumentIngestionService)
          .create(tenantId, { filename, content: `# ${filename}\n\nsome text` });
        const [job] = await query<Array<{ id: string }>>(
          `SELECT id FROM document_jobs WHERE document_id = $1`,
          [document.id],
        );
        return job.id;
      },
    },
    {
      table: 'code_diffs',
      queue: () => ctx.app.get(CodeDiffsRepository).queue,
      enqueue: async () => {
        const view = await ctx.get(DiffApplicationService).apply(tenantId, {
          userId: 'u',
          repository: `repo-${Math.random().toString(36).slice(2, 10)}`,
          files: [{ path: 'src/a.ts', status: 'added', after: 'export const a = 1;\n' }],
        });
        return view.diff_id;
      },
    },
  ];
  const row = async (kind: Kind, id: string) =>
    (
      await query<Array<{ status: string; attempts: number; locked_by: string | null; error: unknown }>>(
        `SELECT status, attempts, locked_by, error FROM ${kind.table} WHERE id = $1`,
        [id],
      )
    )[0];
  const expireLease = (kind: Kind, id: string) =>
    query(`UPDATE ${kind.table} SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);

  beforeAll(async () => {
    ctx = await startTestContext([CodeModule]);
    db = ctx.app.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('queue', 'queue', undefined)).tenant.id;
  });
  afterAll(() => ctx?.close());
  afterEach(async () => {
    for (const { table } of kinds)
      await query(`UPDATE ${table} SET status = 'done', error = NULL, finished_at = now(), locked_by = NULL
                   WHERE status NOT IN ('done', 'failed')`);
  });

  it('both tables have the queue columns, with the same types', async () => {
    const columns = await query<Array<{ table_name: string; column_name: string; data_type: string }>>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_name IN ('document_jobs', 'code_diffs') AND column_name = ANY($1)
       ORDER BY column_name`,
      [QUEUE_COLUMNS],
    );
    const of = (table: string) =>
      columns.filter((c) => c.table_name === table).map((c) => `${c.column_name} ${c.data_type}`);
    expect(of('document_jobs')).toHaveLength(QUEUE_COLUMNS.length);
    expect(of('code_diffs')).toEqual(of('document_jobs'));
  });

  describe.each(kinds)('$table', (kind) => {
    it('renews a lease for its holder only; once it expired another worker takes the job over', async () => {
      const id = await kind.enqueue();
      const queue = kind.queue();
      const first = await system(() => queue.claim('w1', 60));
      expect(first).toMatchObject({ id, tenant_id: tenantId, attempts: 1 });
      expect(await system(() => queue.heartbeat(id, 'w1', 60))).toBe(true);
      expect(await system(() => queue.heartbeat(id, 'w2', 60))).toBe(false);
      expect(await system(() => queue.claim('w2', 60))).toBeNull();

      await expireLease(kind, id);
      expect(await system(() => queue.claim('w2', 60))).toMatchObject({ id, attempts: 2 });
      expect(await system(() => queue.heartbeat(id, 'w1', 60))).toBe(false);
      expect(await system(() => queue.finish(null, id, 'w1', { status: 'done' }))).toBe(false);
      expect(await system(() => queue.finish(null, id, 'w2', { status: 'done' }))).toBe(true);
      expect(await row(kind, id)).toMatchObject({ status: 'done', attempts: 2, locked_by: null });
    });

    it('holds a retry back for its delay, keeping the attempt’s error, then claims it again', async () => {
      const id = await kind.enqueue();
      const queue = kind.queue();
      await system(() => queue.claim('w1', 60));
      const error = { code: 'FLAKY', message: 'try again', attempts: 1 };
      expect(await system(() => queue.retryLater(null, id, 'w1', 3600, error))).toBe(true);
      expect(await system(() => queue.claim('w1', 60))).toBeNull();
      expect(await row(kind, id)).toMatchObject({ status: 'queued', attempts: 1, locked_by: null, error });
      expect(await system(() => queue.nextDueInMs())).toBeGreaterThan(3_500_000);

      await query(`UPDATE ${kind.table} SET run_after = now() WHERE id = $1`, [id]);
      expect(await system(() => queue.claim('w2', 60))).toMatchObject({ id, attempts: 2 });
    });

    it('leaves a job whose worker died on its last attempt to recovery, which fails it and keeps the earlier error', async () => {
      const id = await kind.enqueue();
      const queue = kind.queue();
      const earlier = { code: 'FLAKY', message: 'the first attempt' };
      await query(
        `UPDATE ${kind.table} SET status = 'running', attempts = max_attempts, locked_by = 'dead-worker',
                lease_expires_at = now() - interval '1 second', error = $2::jsonb WHERE id = $1`,
        [id, JSON.stringify(earlier)],
      );
      expect(await system(() => queue.claim('w1', 60))).toBeNull();
      expect(await system(() => queue.nextDueInMs())).toBeNull();
      expect(await system(() => queue.requeueExpired())).toBe(0);

      const failed = await system(() => queue.failExhaustedExpired());
      expect(failed.map((job) => job.id)).toEqual([id]);
      const after = await row(kind, id);
      expect(after).toMatchObject({ status: 'failed', locked_by: null });
      expect(after.error).toEqual({
        code: 'LEASE_EXPIRED',
        message: expect.any(String),
        attempts: after.attempts,
        previous: earlier,
      });
    });

    it('puts a job whose worker died with attempts left back in the queue', async () => {
      const id = await kind.enqueue();
      const queue = kind.queue();
      await system(() => queue.claim('dead-worker', 60));
      await expireLease(kind, id);
      expect(await system(() => queue.requeueExpired())).toBe(1);
      expect(await row(kind, id)).toMatchObject({ status: 'queued', attempts: 1, locked_by: null });
    });

    it('refuses a failed job without an error, or an error without a code', async () => {
      const id = await kind.enqueue();
      await expect(
        query(`UPDATE ${kind.table} SET status = 'failed', error = NULL WHERE id = $1`, [id]),
      ).rejects.toThrow(/CHK_.*_error/);
      await expect(
        query(`UPDATE ${kind.table} SET status = 'failed', error = '{"message":"no code"}' WHERE id = $1`, [
          id,
        ]),
      ).rejects.toThrow(/CHK_.*_error/);
      const queue = kind.queue();
      await system(() => queue.claim('w1', 60));
      const error = { code: 'BROKEN', message: 'for good', detail: { line: 3 } };
      expect(await system(() => queue.finish(null, id, 'w1', { status: 'failed', error }))).toBe(true);
      expect(await row(kind, id)).toMatchObject({ status: 'failed', error });
    });

    it('cleans up finished jobs past their retention only', async () => {
      const old = await kind.enqueue();
      const recent = await kind.enqueue();
      const queue = kind.queue();
      await query(`UPDATE ${kind.table} SET status = 'done', finished_at = now() WHERE id = ANY($1)`, [
        [old, recent],
      ]);
      await query(`UPDATE ${kind.table} SET finished_at = now() - interval '10 days' WHERE id = $1`, [old]);
      const pending = await kind.enqueue();
      await system(() => queue.deleteFinishedBefore(new Date(Date.now() - 86_400_000)));
      const left = await query<Array<{ id: string }>>(`SELECT id FROM ${kind.table} WHERE id = ANY($1)`, [
        [old, recent, pending],
      ]);
      expect(left.map((r) => r.id).sort()).toEqual([recent, pending].sort());
    });
  });

  it('keeps a failed document job nobody has resolved past retention (the dead letter), but not a failed diff', async () => {
    const [documents, diffs] = kinds;
    const documentJob = await documents.enqueue();
    const diff = await diffs.enqueue();
    for (const [kind, id] of [
      [documents, documentJob],
      [diffs, diff],
    ] as const)
      await query(
        `UPDATE ${kind.table} SET status = 'failed', error = '{"code":"BROKEN","message":"m"}',
                finished_at = now() - interval '10 days' WHERE id = $1`,
        [id],
      );
    const cutoff = new Date(Date.now() - 86_400_000);
    await system(() => documents.queue().deleteFinishedBefore(cutoff));
    await system(() => diffs.queue().deleteFinishedBefore(cutoff));
    expect(await row(documents, documentJob)).toMatchObject({ status: 'failed' });
    expect(await row(diffs, diff)).toBeUndefined();
  });
});
