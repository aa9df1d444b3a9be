import { SqlToolTimeBudget } from './sql-tool-time-budget';

describe('SqlToolTimeBudget', () => {
  let now = 0;
  const budget = () => new SqlToolTimeBudget(60_000, 5_000, () => now);

  beforeEach(() => (now = 1_000_000));

  it('charges every query and refuses once the bucket is empty, until it refills', () => {
    const b = budget();
    expect(b.retryAfterSeconds('t')).toBe(0);
    for (let k = 0; k < 4; k++) b.charge('t', 1_000);
    expect(b.remainingMs('t')).toBe(1_000);
    b.charge('t', 3_000);
    expect(b.remainingMs('t')).toBe(-2_000);
    // 60 s per hour refills 1 ms every 60 ms: 2001 ms owed take a little over 120 s.
    expect(b.retryAfterSeconds('t')).toBe(121);
    now += 121_000;
    expect(b.retryAfterSeconds('t')).toBe(0);
    expect(b.remainingMs('other')).toBe(5_000);
  });

  it('never holds more than its capacity', () => {
    const b = budget();
    b.charge('t', 100);
    now += 3_600_000;
    expect(b.remainingMs('t')).toBe(5_000);
  });
});
