import { resolveTimeRange } from './time-range.util';

const NOW = new Date('2026-02-11T15:30:00Z'); // a Wednesday

describe('resolveTimeRange', () => {
  it.each([
    ['last_24h', '2026-02-10T15:30:00.000Z', '2026-02-11T15:30:00.000Z'],
    ['last_90m', '2026-02-11T14:00:00.000Z', '2026-02-11T15:30:00.000Z'],
    ['last_2w', '2026-01-28T15:30:00.000Z', '2026-02-11T15:30:00.000Z'],
    ['today', '2026-02-11T00:00:00.000Z', '2026-02-11T15:30:00.000Z'],
    ['yesterday', '2026-02-10T00:00:00.000Z', '2026-02-11T00:00:00.000Z'],
    ['this_week', '2026-02-09T00:00:00.000Z', '2026-02-11T15:30:00.000Z'],
    ['last_week', '2026-02-02T00:00:00.000Z', '2026-02-09T00:00:00.000Z'],
    ['last_month', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
  ])('%s', (relative, start, end) => {
    const range = resolveTimeRange({ relative }, NOW);
    expect([range.start.toISOString(), range.end.toISOString()]).toEqual([start, end]);
  });

  it('treats a Sunday as the last day of its week', () => {
    const range = resolveTimeRange({ relative: 'last_week' }, new Date('2026-02-15T10:00:00Z'));
    expect(range.start.toISOString()).toBe('2026-02-02T00:00:00.000Z');
  });

  it('accepts absolute bounds, end defaulting to now, and refuses inverted or mixed ones', () => {
    expect(resolveTimeRange({ start: '2026-02-01T00:00:00Z' }, NOW).end).toEqual(NOW);
    expect(() => resolveTimeRange({ start: '2026-02-12T00:00:00Z' }, NOW)).toThrow(/before end/);
    expect(() => resolveTimeRange({ relative: 'today', start: '2026-02-01T00:00:00Z' }, NOW)).toThrow(
      /not both/,
    );
    expect(() => resolveTimeRange({ end: '2026-02-01T00:00:00Z' }, NOW)).toThrow(/start is required/);
  });

  it('uses the fallback when nothing is given', () => {
    const range = resolveTimeRange(undefined, NOW, 'last_7d');
    expect(range.end.getTime() - range.start.getTime()).toBe(7 * 86_400_000);
  });
});
