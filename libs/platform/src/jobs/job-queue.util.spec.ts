import {
  exceededQueueLimit,
  failedAttemptOutcome,
  retryDelaySeconds,
  TenantTurn,
  tenantTurnOrder,
} from './job-queue.util';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const turn = (
  tenantId: string,
  running: number,
  lastClaimed: number | null,
  waiting: number,
): TenantTurn => ({
  tenantId,
  running,
  lastClaimedAt: lastClaimed === null ? null : at(lastClaimed),
  waitingSince: at(waiting),
});

describe('tenantTurnOrder', () => {
  it('serves the tenant with the fewest running jobs first', () => {
    expect(tenantTurnOrder([turn('busy', 2, null, 0), turn('idle', 0, 50, 9)], 0)).toEqual(['idle', 'busy']);
  });

  it('among equally busy tenants, serves the one claimed longest ago, a never-served one before all', () => {
    const order = tenantTurnOrder(
      [turn('recent', 0, 30, 0), turn('long-ago', 0, 10, 5), turn('never', 0, null, 9)],
      0,
    );
    expect(order).toEqual(['never', 'long-ago', 'recent']);
  });

  it('then the tenant whose due job waited longest, then the tenant id', () => {
    expect(tenantTurnOrder([turn('b', 0, null, 5), turn('c', 0, null, 1), turn('a', 0, null, 5)], 0)).toEqual(
      ['c', 'a', 'b'],
    );
  });

  it('leaves out a tenant at its running cap, and applies no cap at 0', () => {
    const turns = [turn('full', 1, null, 0), turn('other', 0, 40, 3)];
    expect(tenantTurnOrder(turns, 1)).toEqual(['other']);
    expect(tenantTurnOrder(turns, 0)).toEqual(['other', 'full']);
    expect(tenantTurnOrder([turn('full', 2, null, 0)], 2)).toEqual([]);
  });

  it('does not reorder the turns it was given', () => {
    const turns = [turn('b', 1, null, 0), turn('a', 0, null, 0)];
    tenantTurnOrder(turns, 0);
    expect(turns.map((t) => t.tenantId)).toEqual(['b', 'a']);
  });
});

describe('retryDelaySeconds', () => {
  it('doubles from the base with factor 2, up to the maximum', () => {
    const policy = { baseSeconds: 5, factor: 2, maxSeconds: 60 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelaySeconds(policy, attempt))).toEqual([
      5, 10, 20, 40, 60, 60,
    ]);
  });

  it('waits the same delay every time with factor 1', () => {
    const policy = { baseSeconds: 300, factor: 1, maxSeconds: 300 };
    expect([1, 2, 7].map((attempt) => retryDelaySeconds(policy, attempt))).toEqual([300, 300, 300]);
  });
});

describe('failedAttemptOutcome', () => {
  it('retries a retryable failure while attempts are left, and fails it after the last one', () => {
    expect(failedAttemptOutcome({ attempts: 1, maxAttempts: 3 }, true)).toBe('retry');
    expect(failedAttemptOutcome({ attempts: 3, maxAttempts: 3 }, true)).toBe('fail');
  });

  it('fails a failure that cannot pass at once', () => {
    expect(failedAttemptOutcome({ attempts: 1, maxAttempts: 3 }, false)).toBe('fail');
  });
});

describe('exceededQueueLimit', () => {
  const checks = (jobs: number, bytes: number) => [
    { key: 'JOBS', limit: 3, queued: jobs, adding: 1 },
    { key: 'BYTES', limit: 100, queued: bytes, adding: 40 },
  ];

  it('lets an enqueue that reaches a limit exactly through', () => {
    expect(exceededQueueLimit(checks(2, 60))).toBeNull();
  });

  it('names the first limit the enqueue would pass, with what the queue would hold', () => {
    expect(exceededQueueLimit(checks(3, 90))).toEqual({ key: 'JOBS', limit: 3, observed: 4 });
    expect(exceededQueueLimit(checks(0, 61))).toEqual({ key: 'BYTES', limit: 100, observed: 101 });
  });
});
