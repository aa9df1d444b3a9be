import { normalizeText } from '../knowledge/text-match.util';
import { spokenDays } from './date-slots';

/**
 * Numbers a question states, with the word that counts them: digits ("42,000원", "1.5만", "500k won",
 * "2 more nights", "x30", "10 of <code>"), Korean native numerals before a counter ("다섯 개", "한 달") and
 * English number words ("two extra days"). Dates, times of day and codes ("SUP-20417", "35허7719") are no
 * numbers. Language knowledge only.
 */
export interface NumberMention {
  value: number;
  /** The word after it (a counter, a unit noun), lower-cased; '' when none. */
  unit: string;
  /** Said as a count of something: "x30", "30x", "10 of SUP-1", "order 40". */
  counted: boolean;
}

const KO_NATIVE: Record<string, number> = {
  한: 1,
  하나: 1,
  두: 2,
  둘: 2,
  세: 3,
  셋: 3,
  석: 3,
  네: 4,
  넷: 4,
  다섯: 5,
  여섯: 6,
  일곱: 7,
  여덟: 8,
  아홉: 9,
  열: 10,
  스무: 20,
  스물: 20,
};
const EN_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  fifty: 50,
  hundred: 100,
  a: 1,
  an: 1,
};
/** Korean counters a native numeral stands before ("다섯 개", "두 명", "한 달"). */
const KO_COUNTER =
  /^(?:개|명|분|박스|상자|대|건|번|권|장|병|벌|마리|달|시간|주|주일|박|통|팩|세트|봉|캔|알|바이알|층|회)/;
/** Words between a number and its unit that do not change it ("2 more nights", "3 extra days"). */
const FILLER = /^(?:more|extra|additional|further|other|full|whole|separate|individual)$/;
const MULTIPLIER: Record<string, number> = { 만: 10_000, 천: 1_000, 억: 100_000_000, k: 1_000, m: 1_000_000 };

/** Spans of the text (lower-cased) that are dates, times of day or codes: their digits are no numbers. */
function maskedSpans(lower: string): string {
  let masked = lower;
  const blank = (at: number, end: number) => {
    masked = masked.slice(0, at) + ' '.repeat(end - at) + masked.slice(end);
  };
  for (const day of spokenDays(lower, new Date(Date.UTC(2000, 0, 1)))) blank(day.at, day.end);
  const patterns = [
    // Times of day: "오후 2시 반", "10시반", "9:30", "3pm", "11 a.m."
    /(?:오전|오후|저녁|밤|아침|낮)?\s*\d{1,2}\s*시(?:\s*(?:반|\d{1,2}\s*분))?/g,
    /\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)/g,
    /\b\d{1,2}:\d{2}\b/g,
    // Codes: letters before digits ("sup-20417", "hr26121180"), digits around letters ("35허7719"), ISO dates.
    /(?<![a-z0-9])(?!x\d+(?![a-z0-9-]))[a-z]+[a-z-]*\d[\w-]*/g,
    /\d+[a-z가-힣]\d[\w-]*/g,
    /\d+(?:-\d+){1,}/g,
  ];
  for (const pattern of patterns)
    for (const m of masked.matchAll(pattern)) blank(m.index, m.index + m[0].length);
  return masked;
}

/** The mentions of the last texts read (a plan reads its question once per numeric input). */
const READ = new Map<string, NumberMention[]>();

/** The number mentions of a text, in order. */
export function numberMentions(text: string): NumberMention[] {
  let mentions = READ.get(text);
  if (!mentions) {
    mentions = readNumbers(text);
    if (READ.size > 64) READ.delete(READ.keys().next().value!);
    READ.set(text, mentions);
  }
  return mentions;
}

function readNumbers(text: string): NumberMention[] {
  const lower = normalizeText(text);
  const masked = maskedSpans(lower);
  const found: Array<NumberMention & { at: number }> = [];
  const unitAfter = (rest: string): string => {
    // "2-day", "3 extra nights".
    const words = rest.match(/^[\s-]*([a-z]+|[\uac00-\ud7a3]+)(?:\s+([a-z]+))?(?:\s+([a-z]+))?/);
    if (!words) return '';
    if (/^[a-z]+$/.test(words[1]) && FILLER.test(words[1]))
      return words[2] && FILLER.test(words[2]) ? (words[3] ?? '') : (words[2] ?? '');
    return words[1];
  };
  for (const m of masked.matchAll(
    /(?<![\w.])(x\s?)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(x(?![a-z]))?\s*(만|천|억|k(?![a-z])|m(?![a-z]))?/g,
  )) {
    let value = Number(m[2].replace(/,/g, ''));
    if (m[4]) value *= MULTIPLIER[m[4]];
    const rest = masked.slice(m.index + m[0].length);
    const unit = m[4] === 'm' ? '' : unitAfter(rest);
    const before = masked.slice(Math.max(0, m.index - 12), m.index);
    const counted =
      Boolean(m[1] || m[3]) || unit === 'of' || /\b(?:order|reorder|put|need|want|send|add)\s+$/.test(before);
    found.push({ value, unit: unit === 'of' ? '' : unit, counted, at: m.index });
  }
  for (const m of masked.matchAll(
    /(?<![\uac00-\ud7a3])(한|하나|두|둘|세|셋|석|네|넷|다섯|여섯|일곱|여덟|아홉|열|스무|스물)\s?([\uac00-\ud7a3]+)/g,
  )) {
    const counter = KO_COUNTER.exec(m[2]);
    if (counter) found.push({ value: KO_NATIVE[m[1]], unit: counter[0], counted: false, at: m.index });
  }
  for (const m of masked.matchAll(
    /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred|an?)\s+(?:(?:more|extra|additional|further)\s+)?([a-z]+)/g,
  )) {
    if (/^an?$/.test(m[1]) && !/^(?:day|week|month|night|hour|year|couple|dozen)s?$/.test(m[2])) continue;
    found.push({ value: EN_WORDS[m[1]], unit: m[2], counted: false, at: m.index });
  }
  // "일주일", "하루", "이틀": Korean words that are counts of days or weeks.
  for (const m of masked.matchAll(/(일주일|하루|이틀|사흘|나흘|보름)/g)) {
    const days: Record<string, [number, string]> = {
      일주일: [1, '주'],
      하루: [1, '일'],
      이틀: [2, '일'],
      사흘: [3, '일'],
      나흘: [4, '일'],
      보름: [15, '일'],
    };
    const [value, unit] = days[m[1]];
    found.push({ value, unit, counted: false, at: m.index });
  }
  return found.sort((a, b) => a.at - b.at).map(({ value, unit, counted }) => ({ value, unit, counted }));
}
