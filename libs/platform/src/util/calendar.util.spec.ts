import { startOfUtcDay, startOfUtcMonth, startOfUtcWeek } from './calendar.util';

describe('UTC calendar boundaries', () => {
  const wednesday = new Date('2026-11-25T12:34:56Z');

  it('starts the day at midnight UTC', () => {
    expect(startOfUtcDay(wednesday).toISOString()).toBe('2026-11-25T00:00:00.000Z');
  });

  it('starts the week on Monday, also when the date is a Sunday or a Monday', () => {
    expect(startOfUtcWeek(wednesday).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(startOfUtcWeek(new Date('2026-11-29T23:59:59Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(startOfUtcWeek(new Date('2026-11-23T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it('starts the month on the 1st, across a year boundary when going back', () => {
    expect(startOfUtcMonth(wednesday).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(startOfUtcMonth(new Date('2026-01-15T00:00:00Z'), 1).toISOString()).toBe(
      '2025-12-01T00:00:00.000Z',
    );
  });
});
