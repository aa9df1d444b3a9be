import { Logger } from '@nestjs/common';
import { currentDatabaseScope } from '../database/database-scope';
import { LeasedJob, LeasedJobRunner } from './leased-job-runner';
import type { ProcessRole } from './process-role';

interface Job extends LeasedJob {
  steps: number;
}

/** An in-memory queue: the loop's own logic (claim scope, lease renewal, lost leases, draining). */
class ListRunner extends LeasedJobRunner<Job> {
  protected readonly logger = new Logger('test');
  protected readonly claimReason = 'test: claim';
  readonly seen: Array<{ id: string; claimScope: unknown; runScope: unknown; lostAt: number | null }> = [];
  claimScopes: unknown[] = [];
  renewals = 0;
  leaseTakenAfter = Number.POSITIVE_INFINITY;

  constructor(
    private readonly queue: Job[],
    role: Partial<ProcessRole> = { runsJobs: true },
    serverProcess = false,
  ) {
    super(role as ProcessRole, serverProcess);
  }

  get concurrency(): number {
    return 2;
  }

  protected get leaseSeconds(): number {
    return 1.5; // renewed every 500 ms
  }

  protected claimJob(): Promise<Job | null> {
    this.claimScopes.push(currentDatabaseScope());
    return Promise.resolve(this.queue.shift() ?? null);
  }

  protected renewLease(): Promise<boolean> {
    this.renewals++;
    return Promise.resolve(this.renewals < this.leaseTakenAfter);
  }

  protected async process(job: Job, held: () => boolean): Promise<void> {
    const entry = {
      id: job.id,
      claimScope: null,
      runScope: currentDatabaseScope(),
      lostAt: null as number | null,
    };
    this.seen.push(entry);
    for (let step = 0; step < job.steps; step++) {
      if (!held()) {
        entry.lostAt = step;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  drain(max = Number.POSITIVE_INFINITY): Promise<number> {
    return this.drainJobs(max, 2);
  }
}

describe('LeasedJobRunner', () => {
  it('claims as the system and runs each job as its tenant until the queue is empty', async () => {
    const runner = new ListRunner([
      { id: 'a', tenantId: 't1', steps: 1 },
      { id: 'b', tenantId: 't2', steps: 1 },
      { id: 'c', tenantId: 't1', steps: 1 },
    ]);
    await expect(runner.drain()).resolves.toBe(3);
    expect(runner.seen.map((s) => [s.id, s.runScope])).toEqual([
      ['a', { tenantId: 't1', bypass: false }],
      ['b', { tenantId: 't2', bypass: false }],
      ['c', { tenantId: 't1', bypass: false }],
    ]);
    expect(runner.claimScopes.every((s) => (s as { bypass: boolean }).bypass)).toBe(true);
  });

  it('stops at most max jobs', async () => {
    const runner = new ListRunner(['a', 'b', 'c'].map((id) => ({ id, tenantId: 't', steps: 0 })));
    await expect(runner.drain(1)).resolves.toBe(1);
  });

  it('renews the lease while a job runs and tells the job when the lease was taken over', async () => {
    const runner = new ListRunner([{ id: 'long', tenantId: 't', steps: 40 }]);
    runner.leaseTakenAfter = 2; // the second renewal finds another owner
    await runner.drain();
    expect(runner.renewals).toBeGreaterThanOrEqual(2);
    expect(runner.seen[0].lostAt).not.toBeNull();
    expect(runner.seen[0].lostAt).toBeLessThan(40);
  });

  it('starts itself only in a server process whose role runs jobs', () => {
    expect(new ListRunner([], { runsJobs: true }, true).autoStarts).toBe(true);
    expect(new ListRunner([], { runsJobs: false }, true).autoStarts).toBe(false);
    expect(new ListRunner([], { runsJobs: true }, false).autoStarts).toBe(false);
  });

  it('works the queue in the background after bootstrap and stops on shutdown', async () => {
    const runner = new ListRunner(
      ['a', 'b', 'c'].map((id) => ({ id, tenantId: 't', steps: 1 })),
      { runsJobs: true },
      true,
    );
    runner.onApplicationBootstrap();
    for (let i = 0; i < 50 && runner.seen.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    await runner.onApplicationShutdown();
    expect(runner.seen.map((s) => s.id).sort()).toEqual(['a', 'b', 'c']);
  });
});
