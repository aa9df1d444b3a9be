import { schemaProperties } from '../plan/schema-introspection.util';
import { dateSlots, isDateProperty, isMonthProperty } from './date-slots';

/** A Thursday. */
const NOW = new Date('2026-11-26T09:00:00Z');
const day = { type: 'string', format: 'date' };
const properties = (props: Record<string, unknown>) =>
  schemaProperties({ type: 'object', properties: props });
/** An invented tool set: a library's loan search (a from/to span) and a room booking (an event's two dates). */
const LOANS = properties({ branch: { type: 'string' }, due_from: day, due_to: day });
const BOOKING = properties({
  arrive_on: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  leave_on: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
});
const VISIT = properties({ visit_date: day, note: { type: 'string' } });

describe('date inputs read from the question', () => {
  it('knows a date input by its format or its pattern', () => {
    expect(BOOKING.map(isDateProperty)).toEqual([true, true]);
    expect(LOANS.map(isDateProperty)).toEqual([false, true, true]);
  });

  it('fills one date input with the day named: relative, weekday, month-day, Korean', () => {
    const visit = (query: string) => dateSlots(VISIT, query, NOW).visit_date;
    expect(visit('tomorrow at 10')).toBe('2026-11-27');
    expect(visit('낼 오전에')).toBe('2026-11-27');
    expect(visit('on Saturday')).toBe('2026-11-28');
    expect(visit('금욜 일정')).toBe('2026-11-27');
    expect(visit('next Tuesday')).toBe('2026-12-01');
    expect(visit('담주 월욜')).toBe('2026-11-30');
    expect(visit('Dec 2, 11am')).toBe('2026-12-02');
    expect(visit('12/3 오후 2시')).toBe('2026-12-03');
    expect(visit('12월 5일')).toBe('2026-12-05');
    expect(visit('다음달 1일')).toBe('2026-12-01');
    expect(visit('no day here')).toBeUndefined();
  });

  it('fills a span: months, from-to, since (start only), one day for both ends of a named span', () => {
    const loans = (query: string) => dateSlots(LOANS, query, NOW);
    expect(loans('this month')).toEqual({ due_from: '2026-11-01', due_to: '2026-11-30' });
    expect(loans('지난달')).toEqual({ due_from: '2026-10-01', due_to: '2026-10-31' });
    expect(loans('in October')).toEqual({ due_from: '2026-10-01', due_to: '2026-10-31' });
    expect(loans('from Dec 12 to Dec 14')).toEqual({ due_from: '2026-12-12', due_to: '2026-12-14' });
    expect(loans('12월 1일부터 15일까지')).toEqual({ due_from: '2026-12-01', due_to: '2026-12-15' });
    expect(loans('월요일부터 오늘까지')).toEqual({ due_from: '2026-11-23', due_to: '2026-11-26' });
    expect(loans('since Monday')).toEqual({ due_from: '2026-11-23' });
    expect(loans('from yesterday')).toEqual({ due_from: '2026-11-25', due_to: '2026-11-25' });
    expect(loans('어제오늘')).toEqual({ due_from: '2026-11-25', due_to: '2026-11-26' });
  });

  it("fills an event's two dates in the order named, the first alone when one day is named", () => {
    expect(dateSlots(BOOKING, '12월 5일 도착 12월 8일 출발', NOW)).toEqual({
      arrive_on: '2026-12-05',
      leave_on: '2026-12-08',
    });
    expect(dateSlots(BOOKING, 'arriving tomorrow', NOW)).toEqual({ arrive_on: '2026-11-27' });
  });

  it("reads weeks, this week's weekdays and two days of one month as spans", () => {
    const loans = (query: string) => dateSlots(LOANS, query, NOW);
    expect(loans('이번주 반납 예정')).toEqual({ due_from: '2026-11-23', due_to: '2026-11-29' });
    expect(loans('last week')).toEqual({ due_from: '2026-11-16', due_to: '2026-11-22' });
    expect(loans('for this Monday')).toEqual({ due_from: '2026-11-23', due_to: '2026-11-23' });
    expect(loans('Nov 1-15, day by day')).toEqual({ due_from: '2026-11-01', due_to: '2026-11-15' });
    expect(dateSlots(VISIT, '지금 대기중', NOW)).toEqual({ visit_date: '2026-11-26' });
    expect(dateSlots(VISIT, '사랑니 발치 30일 9시반', NOW)).toEqual({ visit_date: '2026-11-30' });
    expect(dateSlots(VISIT, '2일 오후 3시', NOW)).toEqual({ visit_date: '2026-12-02' });
  });

  it('fills a month input with the month named, and a count of days with the length of a span', () => {
    const CLAIMS = properties({
      claim_month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' },
      start: day,
      days: { type: 'integer', maximum: 31 },
    });
    expect(CLAIMS.map(isMonthProperty)).toEqual([true, false, false]);
    expect(dateSlots(CLAIMS, 'september claims', NOW)).toEqual({
      claim_month: '2026-09',
      start: '2026-09-01',
      days: 30,
    });
    expect(dateSlots(CLAIMS, '지난달 반송', NOW)).toMatchObject({ claim_month: '2026-10', days: 31 });
    expect(dateSlots(CLAIMS, 'tomorrow', NOW)).toEqual({ claim_month: '2026-11', start: '2026-11-27' });
  });
});
