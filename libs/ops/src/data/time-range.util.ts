import { startOfUtcDay, startOfUtcMonth, startOfUtcWeek } from '@app/platform';
import { ToolError, ToolErrorCode } from '@app/tools';

export const RELATIVE_RANGES = [
  'last_1h',
  'last_6h',
  'last_24h',
  'last_7d',
  'last_30d',
  'today',
  'yesterday',
  'this_week',
  'last_week',
  'this_month',
  'last_month',
] as const;

/** `last_<n><unit>` (m, h, d, w) or a calendar name; calendar periods are UTC, weeks start on Monday. */
export const RELATIVE_RANGE_PATTERN = `^(last_[1-9][0-9]{0,3}(m|h|d|w)|${RELATIVE_RANGES.filter((r) => !/^last_\d/.test(r)).join('|')})$`;

export interface TimeRangeInput {
  relative?: string;
  start?: string;
  end?: string;
}

export interface ResolvedTimeRange {
  start: Date;
  end: Date;
}

export const TIME_RANGE_SCHEMA = {
  type: 'object',
  description:
    'Time window. Either `relative` (last_1h, last_24h, last_7d, last_30d, last_<n>m|h|d|w, today, yesterday, this_week, last_week, this_month, last_month; calendar periods in UTC, weeks start Monday) or absolute ISO 8601 `start`/`end` (end defaults to now).',
  properties: {
    relative: { type: 'string', pattern: RELATIVE_RANGE_PATTERN, examples: ['last_24h', 'last_week'] },
    start: { type: 'string', format: 'date-time' },
    end: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
} as const;

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

function invalid(message: string): ToolError {
  return new ToolError(ToolErrorCode.INVALID_INPUT, message, { field: 'time_range' });
}

/** Resolves a relative or absolute window against `now` into [start, end). */
export function resolveTimeRange(
  input: TimeRangeInput | undefined,
  now: Date,
  fallback = 'last_24h',
): ResolvedTimeRange {
  if (input?.start || input?.end) {
    if (input.relative) throw invalid('Give either time_range.relative or start/end, not both.');
    if (!input.start) throw invalid('time_range.start is required when end is given.');
    const start = new Date(input.start);
    const end = input.end ? new Date(input.end) : now;
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) throw invalid('Unreadable date.');
    if (start >= end) throw invalid('time_range.start must be before end.');
    return { start, end };
  }
  const relative = input?.relative ?? fallback;
  const last = /^last_(\d+)(m|h|d|w)$/.exec(relative);
  if (last) return { start: new Date(now.getTime() - Number(last[1]) * UNIT_MS[last[2]]), end: now };
  const today = startOfUtcDay(now);
  switch (relative) {
    case 'today':
      return { start: today, end: now };
    case 'yesterday':
      return { start: new Date(today.getTime() - UNIT_MS.d), end: today };
    case 'this_week':
      return { start: startOfUtcWeek(now), end: now };
    case 'last_week': {
      const thisWeek = startOfUtcWeek(now);
      return { start: new Date(thisWeek.getTime() - UNIT_MS.w), end: thisWeek };
    }
    case 'this_month':
      return { start: startOfUtcMonth(now), end: now };
    case 'last_month':
      return { start: startOfUtcMonth(now, 1), end: startOfUtcMonth(now) };
    default:
      throw invalid(`Unknown relative time range "${relative}".`);
  }
}
