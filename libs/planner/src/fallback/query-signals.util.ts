import type { Aggregation } from '@app/tools';
import { parseTimeRange, SpokenTimeRange } from './time-range.util';

/** What the words of a question say, independent of any tool. */
export interface QuerySignals {
  limit: number | null;
  /** The limit came from a ranking ("top 5", "상위 3"), not from a page size. */
  rankedLimit: boolean;
  offset: number | null;
  order: 'desc' | 'asc' | null;
  superlative: boolean;
  aggregation: Aggregation | null;
  /** "one number", "전체 평균": a single value over everything rather than one per item. */
  overall: boolean;
  timeRange: SpokenTimeRange | null;
  bucket: string | null;
  trend: boolean;
  depth: number | null;
  identifiers: string[];
  /** Quoted words ('timeout', "OOM") and "for X" after "search ... for". */
  quoted: string[];
  /** Exact-word search asked for ("정확히", "exact", "keyword search"). */
  exactText: boolean;
}

const AGGREGATION_WORDS: Array<[RegExp, Aggregation]> = [
  [/p95\s*(?:기준|로|of\b)|95\s*(?:th)?\s*(?:percentile|퍼센타일|백분위)/, 'p95'],
  [/평균|average|\bavg\b|\bmean\b/, 'avg'],
  [/최대|최고치|피크|\bmax(?:imum)?\b|\bpeak\b/, 'max'],
  [/최소|최저|\bmin(?:imum)?\b/, 'min'],
  [/합계|총합|합산|누적|\bsum\b|\btotal\b/, 'sum'],
  [/\(count\)|\bhow many\b.*\bsamples?\b|샘플\s*(?:수|개수)/, 'count'],
];

/** A count right after one of the ranking words, not followed by a unit ("worst 3", not "highest 5 minutes"). */
function rankedCount(words: string): RegExp {
  return new RegExp(`\\b(?:${words})\\s+(\\d{1,3})\\b(?!\\s*(?:%|ms|min|minutes?|hours?|h|m|days?|d)\\b)`);
}

const LIMIT_PATTERNS: Array<[RegExp, 'desc' | 'asc' | null, boolean]> = [
  [/\btop\s*-?\s*(\d{1,4})/, 'desc', true],
  [/상위\s*(\d{1,4})/, 'desc', true],
  [/\bbottom\s*-?\s*(\d{1,4})/, 'asc', true],
  [/하위\s*(\d{1,4})/, 'asc', true],
  // "worst 3", "lowest 5": a ranking word right before the count (not "highest 5 minutes").
  [rankedCount('worst|highest|busiest|heaviest|biggest|largest'), 'desc', true],
  [rankedCount('lowest|least|smallest|quietest'), 'asc', true],
  [/\b(?:first|limit|up to)\s+(\d{1,4})/, null, false],
  // "last 5 deploys", "latest 10 entries": the newest N (a span, "last 2 weeks", is read as time first).
  [
    /\b(?:last|latest|most recent|recent)\s+(\d{1,3})\s+(?!(?:minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|years?)\b)[a-z]/,
    null,
    false,
  ],
  [/(\d{1,4})\s*(?:개|대|곳|건|명)/, null, false],
  [/(\d{1,4})\s+(?:items?|results?|records?|rows?|entries|entry|events?|documents?|docs?)\b/, null, false],
];

/** "N <item noun>" ("5 rooms"): a count of the items the tenant's tools look up (nouns from its knowledge). */
const NOUN_COUNTS = new Map<string, RegExp | null>();
function nounCount(nouns: readonly string[]): RegExp | null {
  const key = nouns.join('|');
  let pattern = NOUN_COUNTS.get(key);
  if (pattern === undefined) {
    const english = nouns.filter((noun) => /^[a-z][a-z0-9]*$/.test(noun));
    pattern = english.length ? new RegExp(`(\\d{1,4})\\s+(?:${english.join('|')})(?:e?s)?\\b`) : null;
    if (NOUN_COUNTS.size > 256) NOUN_COUNTS.clear();
    NOUN_COUNTS.set(key, pattern);
  }
  return pattern;
}

const DESC_WORDS =
  /높은|높았던|많은|많이|가장\s*바쁜|최고|제일\s*긴|\bhigh(?:est|er)?\b|\bmost\b|\bbusiest\b|\bheaviest\b|\bworst\b|\btop\b/;
const ASC_WORDS =
  /낮은|적은|한가한|노는|오래된\s*(?:것|거|순)|\blow(?:est|er)?\b|\bleast\b|\bfewest\b|\bidle\b|\boldest\b/;
const SUPERLATIVE = /가장|제일|젤|하나만|\b(?:highest|lowest|busiest|most|least|fewest|worst)\b/;
const IDENTIFIER = /(?<![a-z0-9_-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![a-z0-9_-])/g;

const BUCKET_UNITS: Record<string, string> = {
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  분: 'm',
  h: 'h',
  hr: 'h',
  hour: 'h',
  hours: 'h',
  시간: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
  일: 'd',
};

function bucketOf(text: string): string | null {
  const sized =
    /(\d{1,2})\s*-?\s*(m|mins?|minutes?|h|hr|hours?|d|days?)\s*(?:buckets?|intervals?|steps?|resolution)|(\d{1,2})\s*(분|시간|일)\s*(?:단위|간격|별|마다)/.exec(
      text,
    );
  if (sized) {
    const amount = sized[1] ?? sized[3];
    const unit = BUCKET_UNITS[sized[2] ?? sized[4]];
    return `${amount}${unit}`;
  }
  if (/시간별|시간\s*단위|hourly|per\s+hour|by\s+hour/.test(text)) return '1h';
  if (/일별|날짜별|일\s*단위|daily|per\s+day|by\s+day/.test(text)) return '1d';
  return null;
}

/** Extracts limits, order, aggregation, time range, bucketing, depth and item names from a question. */
export function extractSignals(query: string, now: Date, itemNouns: readonly string[] = []): QuerySignals {
  const text = query.normalize('NFC').toLowerCase();
  const timeRange = parseTimeRange(text, now);
  const bucket = bucketOf(text);
  let rest = timeRange ? text.replace(timeRange.span, ' ') : text;
  rest = rest.replace(
    /(\d{1,2})\s*-?\s*(?:m|mins?|minutes?|h|hr|hours?|d|days?)\s*(?:buckets?|intervals?)|\d{1,2}\s*(?:분|시간|일)\s*(?:단위|간격|별|마다)/g,
    ' ',
  );

  let limit: number | null = null;
  let order: 'desc' | 'asc' | null = null;
  let rankedLimit = false;
  const offsetMatch =
    /\b(?:skip|skipping|offset)\s+(?:the\s+first\s+)?(\d{1,4})|(\d{1,4})\s*(?:개|건)\s*(?:건너|스킵)/.exec(
      rest,
    );
  const offset = offsetMatch ? Number(offsetMatch[1] ?? offsetMatch[2]) : null;
  if (offsetMatch) rest = rest.replace(offsetMatch[0], ' ');
  const counted = nounCount(itemNouns);
  const patterns: typeof LIMIT_PATTERNS = counted
    ? [...LIMIT_PATTERNS, [counted, null, false]]
    : LIMIT_PATTERNS;
  for (const [pattern, direction, ranked] of patterns) {
    const match = pattern.exec(rest);
    if (match) {
      limit = Number(match[1]);
      order = direction;
      rankedLimit = ranked;
      break;
    }
  }
  if (limit === null && /하나만|딱\s*하나|\bjust one\b|\bthe single\b/.test(rest)) limit = 1;
  const ascending = ASC_WORDS.test(rest);
  if (!order || (order === 'desc' && ascending && !/\btop\b|상위/.test(rest)))
    order = ascending ? 'asc' : DESC_WORDS.test(rest) ? 'desc' : order;
  const superlative = SUPERLATIVE.test(rest);

  const aggregation = AGGREGATION_WORDS.find(([pattern]) => pattern.test(rest))?.[1] ?? null;
  const overall =
    /one number|single number|single value|하나의 값|한\s*개의?\s*값|숫자\s*하나|전체\s*평균|\boverall\b/.test(
      rest,
    );

  const trend = /추이|트렌드|변화|\btrend|over\s+time|시계열|그래프로/.test(rest);

  const depthMatch =
    /(?:depth|깊이)\s*(\d)|(\d)\s*(?:단계|hops?|levels?|depth)|\b(one|two|three|four|five)\s+(?:hops?|levels?)/.exec(
      rest,
    );
  const words: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5 };
  const depth = depthMatch ? Number(depthMatch[1] ?? depthMatch[2] ?? words[depthMatch[3]]) : null;

  const identifiers = [...new Set(query.normalize('NFC').toLowerCase().match(IDENTIFIER) ?? [])];
  const quoted = [...query.normalize('NFC').matchAll(/['"‘“]([^'"’”]{2,40})['"’”]/g)].map((m) => m[1].trim());
  const searchFor = /\bsearch\b.*\bfor\s+([A-Za-z][\w-]{1,30})\s*$/.exec(query.trim());
  if (!quoted.length && searchFor) quoted.push(searchFor[1]);
  const exactText = /정확히|키워드\s*검색|\bexact(?:ly)?\b|keyword search/.test(rest);
  return {
    limit,
    rankedLimit,
    offset,
    order,
    superlative,
    aggregation,
    overall,
    timeRange,
    bucket,
    trend,
    depth,
    identifiers,
    quoted,
    exactText,
  };
}
