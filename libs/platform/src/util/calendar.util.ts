// UTC calendar boundaries shared by the OPS tools' `time_range` and the fallback planner's
// reading of "last week" / "지난주": both mean the same calendar periods, weeks starting on Monday.

const DAY_MS = 86_400_000;

/** Midnight UTC of `date`'s day. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** Midnight UTC of the Monday of `date`'s week. */
export function startOfUtcWeek(date: Date): Date {
  const day = startOfUtcDay(date);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

/** Midnight UTC of the first day of `date`'s month, or of the month `monthsBack` before it. */
export function startOfUtcMonth(date: Date, monthsBack = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - monthsBack, 1));
}
