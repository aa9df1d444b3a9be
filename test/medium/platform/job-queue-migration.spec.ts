import { CodeModule, DiffApplicationService } from '@app/code';
import { CodeDiffsRepository } from '@app/code/testing';
import { DocumentIngestionService } from '@app/documents';
import { JobsRepository } from '@app/documents/testing';
import { unifyJobQueueColumnsDown, unifyJobQueueColumnsUp } from '@app/migrations';
import { AuthService, runAsSystem } from '@app/platform';
import { DataSource } from 'typeorm';
import { queryAsOwner, startTestContext, TestContext, testBackend } from '@test/support';

interface JobState {
  id: string;
  status: string;
  attempts: number;
  locked_by: string | null;
  lease_expires_at: Date | null;
  error: Record<string, unknown> | null;
}

/**
 * The migration to one job queue (UnifyJobQueueColumns) on a database that still has the drifted
 * columns (`document_jobs.error_details`, no `heartbeat_at` on diffs) and holds queued, leased and
 * failed jobs of both kinds: afterwards every job is there with its state, attempts, lease and error,
 * and the queue goes on with them.
 */
describe(`job queue migration (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;
  let tenantId: string;
  const system = <T>(work: () => Promise<T>) => runAsSystem('test: job migration', work, { quiet: true });
  const query = <T = Array<Record<string, unknown>>>(sql: string, params: unknown[] = []) =>
    system(() => db.query<T>(sql, params));
  const asOwner = async (statements: string[]) => {
    for (const sql of statements) await queryAsOwner(ctx.database, db, sql);
  };

  beforeAll(async () => {
    ctx = await startTestContext([CodeModule]);
    db = ctx.app.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('migrate', 'migrate', undefined)).tenant.id;
  });
  afterAll(() => ctx?.close());

  it('keeps every queued, leased and failed job of both kinds with its state, attempts and error', async () => {
    const documentJobs: string[] = [];
    for (const name of ['queued', 'leased', 'failed', 'retrying']) {
      const document = await ctx
        .get(DocumentIngestionService)
        .create(tenantId, { filename: `${name}.md`, content: `# ${name}\n\ntext of ${name}` });
      const [job] = await query<Array<{ id: string }>>(
        `SELECT id FROM document_jobs WHERE document_id = $1`,
        [document.id],
      );
      documentJobs.push(job.id);
    }
    const diffs: string[] = [];
    for (const name of ['queued', 'leased', 'failed', 'old-failed']) {
      const view = await ctx.get(DiffApplicationService).apply(tenantId, {
        userId: 'u',
        repository: name,
        files: [{ path: `src/${name}.ts`, status: 'added', after: `export const x = '${name}';\n` }],
      });
      diffs.push(view.diff_id);
    }

    await asOwner(unifyJobQueueColumnsDown());
    const lease = `locked_by = 'old-worker', lease_expires_at = now() + interval '1 hour', claimed_at = now()`;
    await query(`UPDATE document_jobs SET status = 'running', attempts = 1, ${lease} WHERE id = $1`, [
      documentJobs[1],
    ]);
    await query(
      `UPDATE document_jobs SET status = 'failed', attempts = 3, finished_at = now(),
              error_details = '{"code":"EMBEDDINGS_FAILED","message":"upstream 503","attempts":3,"retryable":true}'
       WHERE id = $1`,
      [documentJobs[2]],
    );
    await query(
      `UPDATE document_jobs SET attempts = 1, run_after = now() + interval '1 hour',
              error_details = '{"code":"EMBEDDINGS_FAILED","message":"upstream 503","attempts":1}'
       WHERE id = $1`,
      [documentJobs[3]],
    );
    await query(`UPDATE code_diffs SET status = 'running', attempts = 2, ${lease} WHERE id = $1`, [diffs[1]]);
    await query(
      `UPDATE code_diffs SET status = 'failed', attempts = 3, finished_at = now(),
              error = '{"code":"INDEXING_FAILED","message":"database gone","attempts":3}'
       WHERE id = $1`,
      [diffs[2]],
    );
    // An error written without a code (the old columns did not require one).
    await query(
      `UPDATE code_diffs SET status = 'failed', attempts = 1, finished_at = now(), error = '{"message":"no code"}'
       WHERE id = $1`,
      [diffs[3]],
    );
    const states = (table: string, errorColumn: string) =>
      query<JobState[]>(
        `SELECT id, status, attempts, locked_by, lease_expires_at, ${errorColumn} AS error FROM ${table}
         WHERE tenant_id = $1 ORDER BY id`,
        [tenantId],
      );
    const before = {
      documents: await states('document_jobs', 'error_details'),
      diffs: await states('code_diffs', 'error'),
    };
    expect(before.documents.map((j) => j.status).sort()).toEqual(['failed', 'queued', 'queued', 'running']);
    expect(before.diffs.map((j) => j.status).sort()).toEqual(['failed', 'failed', 'queued', 'running']);

    await asOwner(unifyJobQueueColumnsUp());

    expect(await states('document_jobs', 'error')).toEqual(before.documents);
    const oldFailed = diffs[3];
    expect(await states('code_diffs', 'error')).toEqual(
      before.diffs.map((job) =>
        job.id === oldFailed ? { ...job, error: { code: 'UNKNOWN', message: 'no code' } } : job,
      ),
    );
    const [leased] = await query<Array<{ heartbeat_at: Date | null; claimed_at: Date }>>(
      `SELECT heartbeat_at, claimed_at FROM code_diffs WHERE id = $1`,
      [diffs[1]],
    );
    expect(leased.heartbeat_at).toEqual(leased.claimed_at);

    // The queue goes on with them: the queued jobs are claimed, the leased ones stay their holder's.
    const documentQueue = ctx.app.get(JobsRepository).queue;
    const diffQueue = ctx.app.get(CodeDiffsRepository).queue;
    expect(await system(() => documentQueue.claim('new-worker', 60))).toMatchObject({ id: documentJobs[0] });
    expect(await system(() => documentQueue.claim('new-worker', 60))).toBeNull();
    expect(await system(() => documentQueue.heartbeat(documentJobs[1], 'old-worker', 60))).toBe(true);
    expect(await system(() => diffQueue.claim('new-worker', 60))).toMatchObject({ id: diffs[0] });
    expect(await system(() => diffQueue.heartbeat(diffs[1], 'old-worker', 60))).toBe(true);
    expect(
      await system(() =>
        diffQueue.finish(null, diffs[1], 'old-worker', {
          status: 'failed',
          error: { code: 'INDEXING_FAILED', message: 'after the migration' },
        }),
      ),
    ).toBe(true);
  });
});
