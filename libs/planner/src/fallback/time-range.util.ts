import { startOfUtcDay, startOfUtcMonth, startOfUtcWeek } from '@app/platform';

/** A time range a question speaks of, as ISO instants with the words that said it. */
export interface SpokenTimeRange {
  start: string;
  end: string;
  /** What the text said, for warnings and answers ("last week", "최근 24시간"). */
  label: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const UNIT_MS: Record<string, number> = {
  minute: 60_000,
  hour: HOUR,
  day: DAY,
  week: 7 * DAY,
  month: 30 * DAY,
};

const KOREAN_UNITS: Record<string, string> = {
  분: 'minute',
  시간: 'hour',
  일: 'day',
  주: 'week',
  개월: 'month',
  달: 'month',
};

function range(start: Date, end: Date, label: string): SpokenTimeRange {
  return { start: start.toISOString(), end: end.toISOString(), label };
}

function parseDate(text: string): Date | null {
  const match = /(\d{4})[-./](\d{1,2})[-./](\d{1,2})(?:[ t](\d{1,2}):(\d{2}))?/i.exec(text);
  if (!match) return null;
  const [, y, m, d, hh, mm] = match;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), Number(hh ?? 0), Number(mm ?? 0)));
  return Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(d) ? null : date;
}

const DATE = String.raw`\d{4}[-./]\d{1,2}[-./]\d{1,2}(?:[ tT]\d{1,2}:\d{2})?`;

/**
 * Resolves the time range a question mentions (Korean or English), in UTC, relative to `now`.
 * Calendar words ("last week", "어제") mean calendar periods; "last N hours/최근 N시간" is rolling.
 * Returns the span it consumed so that numbers inside it are not read as limits.
 */
export function parseTimeRange(query: string, now: Date): (SpokenTimeRange & { span: string }) | null {
  const found = parseSpokenRange(spelledOut(query.toLowerCase()), now);
  if (!found) return null;
  // The span as the original text has it, so that callers can cut it out of the question.
  return query.toLowerCase().includes(found.span) ? found : { ...found, span: found.label };
}

const NUMBER_WORDS: Record<string, string> = {
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  ten: '10',
  twelve: '12',
  'a couple of': '2',
  'a few': '3',
};

/** Number words as digits ("past two days" -> "past 2 days", "최근 일주일" -> "최근 7일"). */
function spelledOut(text: string): string {
  let out = text
    .replace(
      /\b(one|two|three|four|five|six|seven|ten|twelve|a couple of|a few)\s+(minutes?|hours?|days?|weeks?|months?)\b/g,
      (_, n: string, unit: string) => `${NUMBER_WORDS[n]} ${unit}`,
    )
    .replace(
      /\b(?:last|past|previous)\s+(?:an?\s+)?(hour|day)\b(?!s)/g,
      (_, unit: string) => `last 1 ${unit}`,
    )
    .replace(
      /(최근|지난|과거)\s*(?:한\s*)?(일주일|하루|이틀|사흘|한\s*시간|두\s*시간|세\s*시간)/g,
      (_, word: string, span: string) => {
        const days: Record<string, string> = { 일주일: '7일', 하루: '1일', 이틀: '2일', 사흘: '3일' };
        const key = span.replace(/\s+/g, '');
        const hours: Record<string, string> = { 한시간: '1시간', 두시간: '2시간', 세시간: '3시간' };
        return `${word} ${days[key] ?? hours[key] ?? span}`;
      },
    );
  out = out.replace(/\bsince\s+yesterday\b/, 'since-yesterday');
  return out;
}

function parseSpokenRange(query: string, now: Date): (SpokenTimeRange & { span: string }) | null {
  const text = query;
  const sinceYesterday = /since-yesterday|어제\s*(?:부터|이후)/.exec(text);
  if (sinceYesterday) {
    const start = new Date(startOfUtcDay(now).getTime() - DAY);
    return { ...range(start, now, 'since yesterday'), span: sinceYesterday[0] };
  }

  const between = new RegExp(`(${DATE})\\s*(?:~|-|–|to|until|부터|에서)\\s*(${DATE})(?:\\s*까지)?`, 'i').exec(
    text,
  );
  if (between) {
    const start = parseDate(between[1]);
    const end = parseDate(between[2]);
    if (start && end && start <= end) {
      const endExclusive = /\d:\d/.test(between[2]) ? end : new Date(end.getTime() + DAY);
      return { ...range(start, endExclusive, between[0].trim()), span: between[0] };
    }
  }
  const since = new RegExp(`(?:since|from|after)\\s+(${DATE})|(${DATE})\\s*(?:이후|부터)`, 'i').exec(text);
  if (since) {
    const start = parseDate(since[1] ?? since[2]);
    if (start) return { ...range(start, now, since[0].trim()), span: since[0] };
  }
  const single = new RegExp(`(?:on\\s+)?(${DATE})`, 'i').exec(text);
  if (single) {
    const day = parseDate(single[1]);
    if (day) {
      const end = /\d:\d/.test(single[1]) ? new Date(day.getTime() + HOUR) : new Date(day.getTime() + DAY);
      return { ...range(day, end, single[0].trim()), span: single[0] };
    }
  }

  const sinceMidnight = /since\s+midnight|자정\s*(?:부터|이후)/.exec(text);
  if (sinceMidnight) return { ...range(startOfUtcDay(now), now, 'today'), span: sinceMidnight[0] };
  const weekdays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
  const koWeekdays = ['일요일', '월요일', '화요일', '수요일', '목요일', '금요일', '토요일'];
  const sinceDay =
    /since\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)|(일요일|월요일|화요일|수요일|목요일|금요일|토요일)\s*(?:부터|이후)/.exec(
      text,
    );
  if (sinceDay) {
    const index = sinceDay[1] ? weekdays.indexOf(sinceDay[1]) : koWeekdays.indexOf(sinceDay[2]);
    const back = (now.getUTCDay() - index + 7) % 7 || 7;
    const start = new Date(
      startOfUtcDay(now).getTime() - (back === 7 && index === now.getUTCDay() ? 0 : back) * DAY,
    );
    return { ...range(start, now, sinceDay[0]), span: sinceDay[0] };
  }
  const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const monthDay =
    /(?:since\s+|from\s+|on\s+)?\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b|(\d{1,2})월\s*(\d{1,2})일\s*(부터|이후)?/.exec(
      text,
    );
  if (monthDay) {
    const month = monthDay[1] ? months.indexOf(monthDay[1]) : Number(monthDay[3]) - 1;
    const day = Number(monthDay[2] ?? monthDay[4]);
    let start = new Date(Date.UTC(now.getUTCFullYear(), month, day));
    if (start > now) start = new Date(Date.UTC(now.getUTCFullYear() - 1, month, day));
    const since = /^(?:since|from)/.test(monthDay[0]) || Boolean(monthDay[5]);
    return {
      ...range(start, since ? now : new Date(start.getTime() + DAY), monthDay[0].trim()),
      span: monthDay[0],
    };
  }

  const rollingEn =
    /(?:last|past|previous|recent|in the last|over the last)\s+(\d+)\s*(minute|min|hour|hr|h|day|d|week|wk|month)s?\b/.exec(
      text,
    );
  if (rollingEn) {
    const unit = { min: 'minute', hr: 'hour', h: 'hour', d: 'day', wk: 'week' }[rollingEn[2]] ?? rollingEn[2];
    const ms = Number(rollingEn[1]) * UNIT_MS[unit];
    return { ...range(new Date(now.getTime() - ms), now, rollingEn[0]), span: rollingEn[0] };
  }
  const rollingKo = /(?:최근|지난|과거)\s*(\d+)\s*(분|시간|일|주|개월|달)(?:\s*(?:간|동안))?/.exec(text);
  if (rollingKo) {
    const ms = Number(rollingKo[1]) * UNIT_MS[KOREAN_UNITS[rollingKo[2]]];
    return { ...range(new Date(now.getTime() - ms), now, rollingKo[0]), span: rollingKo[0] };
  }
  const hourAgo = /(?:last|past)\s+hour\b|최근\s*한\s*시간/.exec(text);
  if (hourAgo) return { ...range(new Date(now.getTime() - HOUR), now, hourAgo[0]), span: hourAgo[0] };

  const today = startOfUtcDay(now);
  const calendar: Array<[RegExp, () => SpokenTimeRange]> = [
    [
      /지난\s*주|저번\s*주|전주|last\s+week|previous\s+week|past\s+week/,
      () => range(new Date(startOfUtcWeek(now).getTime() - 7 * DAY), startOfUtcWeek(now), 'last week'),
    ],
    [/이번\s*주|금주|this\s+week/, () => range(startOfUtcWeek(now), now, 'this week')],
    [
      /그저께|그제|day\s+before\s+yesterday/,
      () =>
        range(
          new Date(today.getTime() - 2 * DAY),
          new Date(today.getTime() - DAY),
          'the day before yesterday',
        ),
    ],
    [/어제|yesterday/, () => range(new Date(today.getTime() - DAY), today, 'yesterday')],
    [/오늘|today/, () => range(today, now, 'today')],
    [
      /지난\s*달|저번\s*달|전월|last\s+month|previous\s+month/,
      () => range(startOfUtcMonth(now, 1), startOfUtcMonth(now), 'last month'),
    ],
    [/이번\s*달|금월|this\s+month/, () => range(startOfUtcMonth(now), now, 'this month')],
    [
      /올해|금년|this\s+year|year\s+to\s+date|\bytd\b/,
      () => range(new Date(Date.UTC(now.getUTCFullYear(), 0, 1)), now, 'this year'),
    ],
    [
      /작년|지난\s*해|last\s+year|previous\s+year/,
      () =>
        range(
          new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1)),
          new Date(Date.UTC(now.getUTCFullYear(), 0, 1)),
          'last year',
        ),
    ],
  ];
  for (const [pattern, build] of calendar) {
    const match = pattern.exec(text);
    if (match) return { ...build(), span: match[0] };
  }
  return null;
}

/** A bucket width that gives a readable number of points for the range. */
export function autoBucket(range: { start: string; end: string }): string {
  const span = Date.parse(range.end) - Date.parse(range.start);
  if (span <= 6 * HOUR) return '5m';
  if (span <= 3 * DAY) return '1h';
  return '1d';
}
