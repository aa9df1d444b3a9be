import { parseTimeRange, ResolvedTimeRange } from './time-range.util';

export type Aggregation = 'avg' | 'max' | 'min' | 'sum' | 'p95';

/** What the words of a question say, independent of any tool. */
export interface QuerySignals {
  limit: number | null;
  order: 'desc' | 'asc' | null;
  superlative: boolean;
  aggregation: Aggregation | null;
  timeRange: ResolvedTimeRange | null;
  bucket: string | null;
  trend: boolean;
  depth: number | null;
  identifiers: string[];
}

const AGGREGATIONS: Array<[RegExp, Aggregation]> = [
  [/p95|95\s*(?:th)?\s*(?:percentile|퍼센타일|백분위)/, 'p95'],
  [/평균|average|\bavg\b|\bmean\b/, 'avg'],
  [/최대|최고치|피크|\bmax(?:imum)?\b|\bpeak\b/, 'max'],
  [/최소|최저|\bmin(?:imum)?\b/, 'min'],
  [/합계|총합|합산|누적|\bsum\b|\btotal\b/, 'sum'],
];

const LIMIT_PATTERNS: Array<[RegExp, 'desc' | 'asc' | null]> = [
  [/\btop\s*-?\s*(\d{1,4})/, 'desc'],
  [/상위\s*(\d{1,4})/, 'desc'],
  [/\bbottom\s*-?\s*(\d{1,4})/, 'asc'],
  [/하위\s*(\d{1,4})/, 'asc'],
  [/\b(?:first|limit)\s+(\d{1,4})/, null],
  [/(\d{1,4})\s*(?:개|대|곳|건|명)/, null],
  [
    /(\d{1,4})\s+(?:servers?|hosts?|items?|results?|databases?|machines?|nodes?|events?|documents?|docs?|records?)\b/,
    null,
  ],
];

const DESC_WORDS =
  /높은|높았던|많은|많이|가장\s*바쁜|최고|\bhigh(?:est|er)?\b|\bmost\b|\bbusiest\b|\bheaviest\b|\btop\b/;
const ASC_WORDS = /낮은|적은|한가한|\blow(?:est|er)?\b|\bleast\b|\bidle\b/;
const SUPERLATIVE = /가장|제일|\b(?:highest|lowest|busiest|most|least)\b/;
const IDENTIFIER = /(?<![a-z0-9_-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![a-z0-9_-])/g;

/** Extracts limits, order, aggregation, time range, bucketing, depth and item names from a question. */
export function extractSignals(query: string, now: Date): QuerySignals {
  const text = query.normalize('NFC').toLowerCase();
  const timeRange = parseTimeRange(text, now);
  const rest = timeRange ? text.replace(timeRange.span, ' ') : text;

  let limit: number | null = null;
  let order: 'desc' | 'asc' | null = null;
  for (const [pattern, direction] of LIMIT_PATTERNS) {
    const match = pattern.exec(rest);
    if (match) {
      limit = Number(match[1]);
      order = direction;
      break;
    }
  }
  if (!order) order = ASC_WORDS.test(rest) ? 'asc' : DESC_WORDS.test(rest) ? 'desc' : null;
  const superlative = SUPERLATIVE.test(rest);

  const aggregation = AGGREGATIONS.find(([pattern]) => pattern.test(rest))?.[1] ?? null;

  const trend = /추이|트렌드|변화|\btrend|over\s+time|시계열|그래프로/.test(rest);
  let bucket: string | null = null;
  if (/시간별|시간\s*단위|hourly|per\s+hour|by\s+hour/.test(rest)) bucket = '1h';
  else if (/일별|날짜별|일\s*단위|daily|per\s+day|by\s+day/.test(rest)) bucket = '1d';
  else if (/5\s*분\s*(?:단위|별|간격)|5[- ]?min(?:ute)?\s*(?:buckets?|intervals?)/.test(rest)) bucket = '5m';

  const depthMatch = /(?:depth|깊이)\s*(\d)|(\d)\s*(?:단계|hops?|levels?|depth)/.exec(rest);
  const depth = depthMatch ? Number(depthMatch[1] ?? depthMatch[2]) : null;

  const identifiers = [...new Set(query.normalize('NFC').toLowerCase().match(IDENTIFIER) ?? [])];
  return { limit, order, superlative, aggregation, timeRange, bucket, trend, depth, identifiers };
}
