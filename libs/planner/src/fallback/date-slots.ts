import { normalizeText } from '../knowledge/text-match.util';
import type { PropertyInfo } from '../plan/schema-introspection.util';

/**
 * Calendar days a question names, for a tool's date inputs (`format: date`, or a YYYY-MM-DD pattern):
 * dates ("Dec 2", "12/3", "12월 5일", "다음달 1일"), days relative to now ("tomorrow", "낼", "어제오늘"),
 * weekdays ("Saturday", "금욜", "next Monday", "담주 화요일"), months ("in October", "이번달") and spans
 * between them ("from Dec 12 to Dec 14", "12월 1일부터 15일까지", "since Monday"). Language knowledge only.
 */
const DAY_MS = 86_400_000;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const KO_WEEKDAYS = ['일', '월', '화', '수', '목', '금', '토'];

interface Mention {
  at: number;
  /** First and last day (equal for one day). */
  from: Date;
  to: Date;
  /** Where the words naming it end. */
  end: number;
  /** "since Monday", "월요일부터" with nothing after: a start only. */
  open?: boolean;
}

const utcDay = (year: number, month: number, day: number) => new Date(Date.UTC(year, month, day));
const iso = (date: Date) => date.toISOString().slice(0, 10);

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** The days a text names, in the order it names them. */
export function spokenDays(query: string, now: Date): Mention[] {
  const text = normalizeText(query);
  const today = utcDay(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const mentions: Mention[] = [];
  const taken: Array<[number, number]> = [];
  const free = (at: number, length: number) => !taken.some(([s, e]) => at < e && at + length > s);
  const add = (match: RegExpMatchArray & { index: number }, from: Date, to = from) => {
    if (!free(match.index, match[0].length) || Number.isNaN(from.getTime())) return;
    taken.push([match.index, match.index + match[0].length]);
    mentions.push({
      at: match.index,
      end: match.index + match[0].length,
      from,
      to,
    });
  };
  /** A month and day without a year: this year's, or next year's when it is long past (planning ahead). */
  const dated = (month: number, day: number) => {
    const date = utcDay(now.getUTCFullYear(), month, day);
    return date.getTime() < today.getTime() - 180 * DAY_MS
      ? utcDay(now.getUTCFullYear() + 1, month, day)
      : date;
  };
  const scan = (pattern: RegExp, build: (m: RegExpExecArray) => Date | [Date, Date] | null) => {
    for (const m of text.matchAll(new RegExp(pattern.source, 'g'))) {
      const built = build(m);
      if (!built) continue;
      if (Array.isArray(built)) add(m, built[0], built[1]);
      else add(m, built, built);
    }
  };
  scan(/\b(\d{4})-(\d{2})-(\d{2})\b/, (m) => utcDay(+m[1], +m[2] - 1, +m[3]));
  // "12월 1일부터 15일까지": the second day in the first one's month.
  scan(/(\d{1,2})월\s*(\d{1,2})일\s*(?:부터|에서|~|-)\s*(\d{1,2})일/, (m) => [
    dated(+m[1] - 1, +m[2]),
    dated(+m[1] - 1, +m[3]),
  ]);
  scan(/(\d{1,2})월\s*(\d{1,2})일/, (m) => dated(+m[1] - 1, +m[2]));
  // "30일 9시반": a day of the month before a time of day, this month's or, when past, next month's.
  scan(/(?<!월\s?)(?<!\d)(\d{1,2})일\s*(?=(?:오전|오후|아침|저녁|밤)?\s*\d{1,2}\s*시)/, (m) => {
    const day = +m[1];
    const date = utcDay(now.getUTCFullYear(), now.getUTCMonth(), day);
    return date.getTime() < today.getTime() ? utcDay(now.getUTCFullYear(), now.getUTCMonth() + 1, day) : date;
  });
  scan(/(다음\s*달|담달|이번\s*달)\s*(\d{1,2})일/, (m) =>
    utcDay(now.getUTCFullYear(), now.getUTCMonth() + (/이번/.test(m[1]) ? 0 : 1), +m[2]),
  );
  // "Nov 1-15", "Dec 7 to 11": two days of one month.
  scan(
    /\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?![a-z])\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*(?:-|–|~|to|through|thru|until|till)\s*(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:am|pm|:|시))/,
    (m) => [dated(MONTHS.indexOf(m[1].slice(0, 3)), +m[2]), dated(MONTHS.indexOf(m[1].slice(0, 3)), +m[3])],
  );
  scan(
    /\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?![a-z])\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b/,
    (m) => dated(MONTHS.indexOf(m[1].slice(0, 3)), +m[2]),
  );
  scan(
    /\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?![a-z])/,
    (m) => dated(MONTHS.indexOf(m[2].slice(0, 3)), +m[1]),
  );
  scan(/(?<![\d/])(\d{1,2})\/(\d{1,2})(?![\d/])/, (m) =>
    +m[1] >= 1 && +m[1] <= 12 && +m[2] >= 1 && +m[2] <= 31 ? dated(+m[1] - 1, +m[2]) : null,
  );
  scan(/어제\s*오늘/, () => [addDays(today, -1), today]);
  scan(/\bday after tomorrow\b|모레/, () => addDays(today, 2));
  scan(/\b(?:tomorrow|tmrw|tmr|tomorow)\b|내일|낼/, () => addDays(today, 1));
  scan(/\byesterday\b|어제/, () => addDays(today, -1));
  scan(
    /\b(?:today|tonight|this morning|this afternoon|this evening|right now)\b|오늘|금일|지금/,
    () => today,
  );
  // Weekdays: "since Monday" / "월요일부터" is the last one; "next Monday", "다음주 월욜" next week's; else the coming one.
  scan(
    /(?:\b(since|next|last|this|coming)\s+)?\b(sun|mon|tue|wed|thu|fri|sat)(?:day|sday|nesday|rsday|urday)\b|(다음\s*주|담주|지난\s*주|저번\s*주|이번\s*주)?\s*([일월화수목금토])(?:요일|욜)(부터|이후)?/,
    (m) => {
      const index = m[2] ? WEEKDAYS.indexOf(m[2]) : KO_WEEKDAYS.indexOf(m[4]);
      if (index < 0) return null;
      const which = m[1] ?? (m[3] ? normalizeText(m[3]).replace(/\s+/g, '') : m[5] ? 'since' : '');
      const ahead = (index - today.getUTCDay() + 7) % 7;
      const mondayOffset = (today.getUTCDay() + 6) % 7;
      if (which === 'since' || which === 'last')
        return addDays(today, -((today.getUTCDay() - index + 7) % 7));
      if (['next', '다음주', '담주'].includes(which))
        return addDays(today, 7 - mondayOffset + ((index + 6) % 7));
      if (['지난주', '저번주'].includes(which)) return addDays(today, -mondayOffset - 7 + ((index + 6) % 7));
      // "this Monday", "이번주 월요일": that day of this week (Monday first), past or not.
      if (['this', '이번주'].includes(which)) return addDays(today, -mondayOffset + ((index + 6) % 7));
      return addDays(today, ahead);
    },
  );
  // Whole weeks (Monday first): "this week", "지난주", "next week".
  const mondayOffset = (today.getUTCDay() + 6) % 7;
  const week = (weeks: number): [Date, Date] => [
    addDays(today, -mondayOffset + 7 * weeks),
    addDays(today, -mondayOffset + 7 * weeks + 6),
  ];
  scan(/\bthis\s+week\b|이번\s*주|금주/, () => week(0));
  scan(/\b(?:last|previous|past)\s+week\b|지난\s*주|저번\s*주|전주/, () => week(-1));
  scan(/\bnext\s+week\b|다음\s*주|담주/, () => week(1));
  // Whole months: "this month", "last month", "in October", "10월".
  const month = (year: number, index: number): [Date, Date] => [
    utcDay(year, index, 1),
    addDays(utcDay(year, index + 1, 1), -1),
  ];
  scan(/this\s+month|이번\s*달|이번달|금월/, () => month(now.getUTCFullYear(), now.getUTCMonth()));
  scan(/last\s+month|previous\s+month|지난\s*달|저번\s*달|전월/, () =>
    month(now.getUTCFullYear(), now.getUTCMonth() - 1),
  );
  scan(/next\s+month|다음\s*달|담달/, () => month(now.getUTCFullYear(), now.getUTCMonth() + 1));
  scan(
    /\b(?:in|during|for)\s+(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?![a-z])|(?<!\d)(\d{1,2})월(?!\s*\d)/,
    (m) => {
      const index = m[1] ? MONTHS.indexOf(m[1].slice(0, 3)) : +m[2] - 1;
      if (index < 0 || index > 11) return null;
      const year = index > now.getUTCMonth() + 6 ? now.getUTCFullYear() - 1 : now.getUTCFullYear();
      return month(year, index);
    },
  );
  // A month named alone ("september claims", "october"): that month (not "may", a verb as often).
  scan(
    /\b(january|february|march|april|june|july|august|september|october|november|december|sept)\b/,
    (m) => {
      const index = MONTHS.indexOf(m[1].slice(0, 3));
      const year = index > now.getUTCMonth() + 6 ? now.getUTCFullYear() - 1 : now.getUTCFullYear();
      return month(year, index);
    },
  );
  mentions.sort((a, b) => a.at - b.at);
  // "since Monday", "월요일부터" (with no day after it): a start only.
  for (const mention of mentions)
    if (
      /^since\b/.test(text.slice(mention.at)) ||
      /\bsince\s+$/.test(text.slice(0, mention.at)) ||
      /^\s*(?:부터|이후)/.test(text.slice(mention.end)) ||
      /(?:부터|이후)$/.test(text.slice(mention.at, mention.end))
    )
      mention.open = true;
  return mentions;
}

/** Whether a property takes a calendar day (YYYY-MM-DD). */
export function isDateProperty(property: PropertyInfo): boolean {
  return shapedAs(property, '2026-11-26', ['11-26', 'abc']);
}

/** Whether a property takes a calendar month (YYYY-MM, a pattern that takes no day). */
export function isMonthProperty(property: PropertyInfo): boolean {
  return shapedAs(property, '2026-11', ['2026-11-26', '11', 'abc']);
}

function shapedAs(property: PropertyInfo, fits: string, not: string[]): boolean {
  if (property.type !== 'string' || property.enumValues) return false;
  if (property.schema.format === 'date') return fits.length === 10;
  const pattern = typeof property.schema.pattern === 'string' ? property.schema.pattern : null;
  if (!pattern) return false;
  try {
    const regex = new RegExp(pattern);
    return regex.test(fits) && !not.some((text) => regex.test(text));
  } catch {
    return false;
  }
}

/** An input that ends a span by its name ("date_to", "end_date", "until"). */
const END_NAME = /(?:^|_)(?:to|end|until|till|through|thru)(?:_|$)/;
const START_NAME = /(?:^|_)(?:from|start|since|begin)(?:_|$)/;
/** An integer input counting the days of a span from a start date ("days", "num_days", "조회 기간(일수)"). */
const DAY_COUNT = /^(?:(?:num|number|count)_)?days$|일수|number of days/i;

/**
 * Values for a tool's date inputs from the days the question names. One date input takes the first day
 * named (and a count of days beside it the length of a span named: "이번달" is 30 days from the 1st). Two
 * take a span's first and last day: inputs whose names say start and end ("date_from", "date_to") take one
 * day for both; two dates of an event ("pickup_date", "return_date") take the days in the order named, the
 * first alone when one day is named. "since <day>" gives the start alone. A month input (YYYY-MM) takes the
 * month of the first day named.
 */
export function dateSlots(
  properties: PropertyInfo[],
  query: string,
  now: Date,
): Record<string, string | number> {
  const dates = properties.filter(isDateProperty);
  const months = properties.filter(isMonthProperty);
  if (!dates.length && !months.length) return {};
  const days = spokenDays(query, now);
  if (!days.length) return {};
  const values: Record<string, string | number> = {};
  for (const month of months) values[month.name] = iso(days[0].from).slice(0, 7);
  if (!dates.length) return values;
  if (dates.length === 1) {
    values[dates[0].name] = iso(days[0].from);
    const count = properties.find(
      (p) =>
        p.type === 'integer' &&
        (DAY_COUNT.test(p.name) ||
          DAY_COUNT.test(typeof p.schema.description === 'string' ? p.schema.description : '')),
    );
    const length = Math.round((days[0].to.getTime() - days[0].from.getTime()) / DAY_MS) + 1;
    if (count && length > 1 && (count.maximum === null || length <= count.maximum))
      values[count.name] = length;
    return values;
  }
  const end = dates.find((p) => END_NAME.test(p.name)) ?? null;
  const start = dates.find((p) => p !== end && (START_NAME.test(p.name) || end)) ?? dates[0];
  const last = end ?? dates.find((p) => p !== start)!;
  const named = Boolean(end);
  const first = days[0];
  const second = days.find((d) => d !== first && d.from.getTime() > first.from.getTime());
  values[start.name] = iso(first.from);
  if (second) values[last.name] = iso(second.to);
  else if (first.open) return values;
  else if (named || first.to.getTime() !== first.from.getTime()) values[last.name] = iso(first.to);
  return values;
}
