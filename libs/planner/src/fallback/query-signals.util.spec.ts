import { extractSignals } from './query-signals.util';

const NOW = new Date('2026-11-22T09:30:00Z');

describe('a count of the newest', () => {
  it('reads "last N <things>" as a limit, and "last N <time unit>" as a time range only', () => {
    expect(extractSignals('last 5 deploys of the order api', NOW).limit).toBe(5);
    expect(extractSignals('the latest 10 entries', NOW).limit).toBe(10);
    const span = extractSignals('errors over the last 2 weeks', NOW);
    expect(span.limit).toBeNull();
    expect(span.timeRange).not.toBeNull();
  });
});
