import { containsTerm, escapeRegExp, normalizeText, stemEnglish } from '../knowledge/text-match.util';
import type { PropertyInfo } from '../plan/schema-introspection.util';
import { numberMentions } from './quantities';

/**
 * Parameter values read from a question with nothing but the tool's input schema, as its admin wrote it:
 * an enum value named by itself, by a label the property's description gives it ("gangnam (Seoul
 * Gangnam)", "dirty=청소필요", "front_desk 프론트", a list in the enum's order "(스탠다드 더블 / ...)") or by
 * its Korean spelling (romanised: "강남점" is `gangnam`); a string shaped like the property's pattern or its
 * description's example ("e.g. HS2611034", "예: E10234"); a number with a unit the property names
 * ("2박" for nights, "3층" for a floor, "room 1203"); a time of day for an HH:MM property ("오후 1시").
 * Language knowledge only (Korean counters and romanisation, English plurals): no domain's words.
 */

interface Term {
  term: string;
  value: string;
}

const LEXICONS = new Map<string, Term[]>();

const SEPARATOR = /[,;/|()=:\n]+|\.\s+/;
const LABEL_MAX = 30;

/**
 * What else the tenant wrote about an enum: the descriptions of other tools' inputs that take the same
 * values (one tool explains "GN 강남" for a branch code another tool only lists) and the descriptions of
 * the tools taking them ("insurance option (none / standard 자차 / full_cover 완전자차)").
 */
export interface EnumContext {
  /** Descriptions of inputs with the same values (read like the property's own). */
  descriptions: readonly string[];
  /** Tool descriptions: read for lists in the values' order and a label right after a value. */
  prose: readonly string[];
  /**
   * Also the language's words for common values (parts of the day, sizes), the distinctive part of a
   * compound value and inflected forms: read when filling a chosen tool's input, not as evidence that a
   * question is about the tool (see slotMatches).
   */
  broad?: boolean;
}

const NO_CONTEXT: EnumContext = { descriptions: [], prose: [] };

/**
 * Words of the language for values many schemas use: parts of the day and sizes (an enum of "AM / PM /
 * EVENING" or "S / M / L" is named by "오후", "afternoon", "small box").
 */
const COMMON_VALUE_WORDS: Record<string, string[]> = {
  am: ['morning', '오전', '아침'],
  pm: ['afternoon', '오후'],
  morning: ['오전', '아침'],
  afternoon: ['오후'],
  evening: ['저녁', 'evening'],
  night: ['야간', '밤', 'overnight'],
  s: ['small', '소형', '작은'],
  m: ['medium', '중형', '중간'],
  l: ['large', '대형', '큰'],
  xl: ['extra large', '특대'],
  // Common words of status and urgency, in Korean (and English synonyms).
  urgent: ['긴급', '급하게', '급히', '급발주', 'asap', 'rush'],
  cancelled: ['취소'],
  canceled: ['취소'],
  confirmed: ['확정'],
  pending: ['대기중', '보류'],
  unpaid: ['미납', '미수', '미결제', 'outstanding'],
  refunded: ['환불'],
  partial: ['부분', '일부만'],
  paid: ['지급완료', '결제완료', '납부완료'],
  returned: ['반송', '반려'],
  rejected: ['거절', '거부'],
  approved: ['승인'],
  open: ['미해결', 'unresolved'],
  lost: ['분실', 'missing'],
  hour: ['시간별', '시간대별', 'hourly', 'hour by hour'],
  day: ['일별', '일자별', '날짜별', '하루하루', 'daily', 'day by day'],
  daily: ['일별', '일자별', '날짜별', '하루하루', 'per day', 'day by day'],
  week: ['주별', '주간별', 'weekly'],
  month: ['월별', 'monthly'],
};

/** Words of a duration written as a value ("5m", "1h", "1d"): "5분", "5-minute", "hourly". */
function durationWords(value: string): string[] {
  const m = /^(\d+)\s*(s|m|min|h|d|w)$/i.exec(value);
  if (!m) return [];
  const n = m[1];
  const unit = m[2].toLowerCase();
  const words: Record<string, string[]> = {
    s: [`${n}초`, `${n} sec`, `${n}-second`, `${n} second`],
    m: [`${n}분`, `${n} min`, `${n}-min`, `${n}-minute`, `${n} minute`, `${n}min`],
    min: [`${n}분`, `${n} min`, `${n}-minute`, `${n} minute`],
    h: [
      `${n}시간`,
      `${n} hour`,
      `${n}-hour`,
      ...(n === '1' ? ['hourly', '시간별', '시간 단위', '1시간 단위'] : []),
    ],
    d: [`${n}일`, `${n} day`, `${n}-day`, ...(n === '1' ? ['daily', '일별', '하루 단위'] : [])],
    w: [`${n}주`, `${n} week`, `${n}-week`, ...(n === '1' ? ['weekly', '주별'] : [])],
  };
  return words[unit] ?? [];
}

/** Words of a compound value ("by_channel", "toll_unpaid") too common to name the value alone. */
const COMMON_PART =
  /^(?:by|per|all|any|none|only|with|without|and|the|for|from|this|that|last|next|same|new|old|full|half|show|change|late|early|time|day|days|week|month|year|type|other|more|less|high|low|open|case|item|list|total|add|set|get|make|take|check|booked|item|main|general|normal|other|each)$/;

/**
 * A short upper-case code that is also a little English word ("IS" for a branch, "A" for a grade) or a
 * letter ("L", "M" of sizes): read only as written in capitals, not as the word "is".
 */
const CODE = /^(?:[A-Z]|AN|AS|AT|BE|BY|DO|GO|HE|IF|IN|IS|IT|ME|MY|NO|OF|ON|OR|SO|TO|UP|US|WE)$/;

/** Words an enum value or its description labels are spelt with, lower-cased; longest first. */
export function enumTerms(property: PropertyInfo, context: EnumContext = NO_CONTEXT): Term[] {
  const values = property.enumValues ?? [];
  const own = typeof property.schema.description === 'string' ? property.schema.description : '';
  const descriptions = [...new Set([own, ...context.descriptions].filter(Boolean))];
  const prose = [...new Set(context.prose.filter(Boolean))];
  const broad = context.broad ?? false;
  const key = JSON.stringify([values, descriptions, prose, broad]);
  const cached = LEXICONS.get(key);
  if (cached) return cached;
  const terms: Term[] = [];
  const add = (term: string, value: string) => {
    const clean = normalizeText(term)
      .replace(/^[\s\-–—.:=]+|[\s\-–—.:=]+$/g, '')
      .trim();
    if (clean.length < 2 || clean.length > LABEL_MAX || /^\d+([-–]\d+)?$/.test(clean)) return;
    terms.push({ term: clean, value });
  };
  for (const value of values) {
    // A short upper-case code ("IS", "SD") is read as written (see enumFromText), not as the word "is".
    if (!CODE.test(value)) add(value, value);
    if (/[_-]/.test(value)) add(value.replace(/[_-]+/g, ' '), value);
    if (/_/.test(value)) add(value.replace(/_+/g, '-'), value);
    // "f_and_b" is written "f&b".
    if (/_and_/.test(value)) add(value.replace(/_and_/g, '&'), value);
    if (broad)
      for (const word of [...(COMMON_VALUE_WORDS[normalizeText(value)] ?? []), ...durationWords(value)])
        add(word, value);
  }
  // A family of compound values ("north_gate", "south_gate"): the part that tells them apart names one.
  for (const [head, value] of distinguishingHeads(values)) add(head, value);
  // A part of a compound value no other value has ("channel" of by_channel, "toll" of toll_unpaid).
  if (broad) for (const [part, value] of distinctiveParts(values)) add(part, value);
  // An acronym of a value of three parts or more ("OOO" for out_of_order), as written in capitals.
  if (broad)
    for (const value of values) {
      const parts = value.split(/[_\s-]+/).filter(Boolean);
      if (parts.length >= 3) add(parts.map((p) => p[0]).join(''), value);
    }
  for (const description of descriptions)
    for (const t of descriptionLabels(values, description)) add(t.term, t.value);
  for (const description of prose)
    for (const t of descriptionLabels(values, description, true)) add(t.term, t.value);
  // The first word of a two-word English label names its value too ("suwon" of "Suwon Gwanggyo"), unless
  // another label starts with it ("seoul" of "Seoul Gangnam" and "Seoul Mapo").
  if (broad)
    for (const { term, value } of [...terms]) {
      const words = term.split(' ');
      const spelt = normalizeText(value).replace(/[_&-]+/g, ' ');
      if (words.length === 2 && /^[a-z]{4,}$/.test(words[0]) && term !== spelt) add(words[0], value);
    }
  // A term two values share says nothing about either.
  const owners = new Map<string, Set<string>>();
  for (const { term, value } of terms) owners.set(term, (owners.get(term) ?? new Set()).add(value));
  const unique = terms
    .filter((t, i) => owners.get(t.term)!.size === 1 && terms.findIndex((u) => u.term === t.term) === i)
    .sort((a, b) => b.term.length - a.term.length);
  if (LEXICONS.size > 2000) LEXICONS.clear();
  LEXICONS.set(key, unique);
  return unique;
}

/**
 * Per tool and enum input (`tool/property`), what the other inputs taking the same values and the tools
 * taking them say about those values (see EnumContext).
 */
export function enumContexts(
  tools: ReadonlyArray<{ name: string; description: string; properties: PropertyInfo[] }>,
): Map<string, EnumContext> {
  const signature = (p: PropertyInfo) => JSON.stringify([...(p.enumValues ?? [])].sort());
  const bySignature = new Map<string, Array<{ tool: string; description: string; property: PropertyInfo }>>();
  for (const tool of tools)
    for (const property of tool.properties)
      if (property.enumValues && property.enumValues.length >= 2) {
        const list = bySignature.get(signature(property)) ?? [];
        list.push({ tool: tool.name, description: tool.description, property });
        bySignature.set(signature(property), list);
      }
  const contexts = new Map<string, EnumContext>();
  for (const list of bySignature.values())
    for (const own of list) {
      const others = list.filter((o) => o !== own);
      contexts.set(`${own.tool}/${own.property.name}`, {
        descriptions: others
          .map((o) => o.property.schema.description)
          .filter((d): d is string => typeof d === 'string'),
        prose: [own.description, ...others.map((o) => o.description)],
      });
    }
  return contexts;
}

/** Parts of compound values ("by_channel") that no other value has, of four letters or more. */
function distinctiveParts(values: string[]): Map<string, string> {
  const parts = values.map((value) => ({ value, parts: normalizeText(value).split(/[_-]+/) }));
  const counts = new Map<string, number>();
  for (const p of parts) for (const part of new Set(p.parts)) counts.set(part, (counts.get(part) ?? 0) + 1);
  const found = new Map<string, string>();
  for (const p of parts) {
    if (p.parts.length < 2) continue;
    for (const part of p.parts)
      if (
        part.length >= 5 &&
        /^[a-z]+$/.test(part) &&
        counts.get(part) === 1 &&
        !COMMON_PART.test(part) &&
        !values.some((v) => normalizeText(v) === part)
      )
        found.set(part, p.value);
  }
  return found;
}

/**
 * Labels a description gives the values: words after a value up to the next ("gangnam (Seoul Gangnam)",
 * "front_desk 프론트"), words before "=value" ("경차/소형=compact"), a list in the values' order ("(스탠다드
 * 더블 / ...)", "파손 / 분실 / 지연"). In a tool's description (`prose`) only the first label after a value,
 * when most values are named there, and lists of three or more.
 */
function descriptionLabels(values: string[], description: string, prose = false): Term[] {
  const terms: Term[] = [];
  const add = (term: string, value: string) => terms.push({ term, value });
  const lower = normalizeText(description);
  // Where each value stands in the description: what follows it up to the next value is its label.
  const places = values
    .map((value) => ({ value, at: findWord(lower, normalizeText(value)) }))
    .filter((p) => p.at >= 0)
    .sort((a, b) => a.at - b.at);
  if (prose && places.length * 3 < values.length * 2) places.length = 0;
  // "label=value" ("경차/소형=compact, 중형=midsize"): the words before each value's "=" are its labels.
  const before = values
    .map((value) => ({
      value,
      match: new RegExp(`([^,;|()=\\n]+?)\\s*=\\s*${escapeRegExp(normalizeText(value))}(?![a-z0-9_])`).exec(
        lower,
      ),
    }))
    .filter((found) => found.match);
  const valueFirst = values.some((value) =>
    new RegExp(`(?<![a-z0-9_])${escapeRegExp(normalizeText(value))}\\s*=`).test(lower),
  );
  if (!prose && !valueFirst && before.length * 2 >= values.length) {
    for (const { value, match } of before) for (const label of match![1].split(/[/|]/)) add(label, value);
    places.length = 0;
  }
  // "미수금(unpaid invoices)", "출고(outbound)": a label before a parenthesis that names one value.
  const bracketed = new Set<string>();
  for (const m of lower.matchAll(/([^\s,;/()=:]+(?:\s[^\s,;/()=:]+)?)\s*\(([^()]*)\)/g)) {
    const inside = values.filter((v) => findWord(m[2], normalizeText(v)) >= 0);
    if (inside.length !== 1 || values.some((v) => normalizeText(v) === m[1])) continue;
    add(m[1], inside[0]);
    bracketed.add(inside[0]);
  }
  places.forEach((place, i) => {
    if (bracketed.has(place.value)) return;
    const end = i + 1 < places.length ? places[i + 1].at : lower.length;
    const after = lower.slice(place.at + place.value.length, end);
    const labels = after
      .split(SEPARATOR)
      .map((l) => l.trim())
      .filter(Boolean);
    for (const label of labels.slice(0, prose ? 1 : 6)) {
      if (values.some((v) => normalizeText(v) === label)) continue;
      add(label, place.value);
    }
  });
  // A list in the enum's order that names no value: labels by position. Parenthesised, or (three or
  // more) one-word items joined by "/" or "·" ("파손 / 분실 / 지연").
  const groups = [
    ...(prose ? [] : (lower.match(/\(([^()]+)\)/g) ?? []).map((g) => g.slice(1, -1).split(/\s*[/,|]\s*/))),
    ...(lower.match(/[^\s/()·,.:;]+(?:\s*[/·]\s*[^\s/()·,.:;]+){2,}/g) ?? []).map((g) =>
      g.split(/\s*[/·]\s*/),
    ),
  ];
  for (const group of groups) {
    const parts = group.filter(Boolean);
    if (parts.length === values.length && !parts.some((p) => values.includes(p)))
      parts.forEach((part, i) => add(part, values[i]));
  }
  return terms;
}

/**
 * Compound enum values whose last part other values share ("north_gate", "south_gate"), by their first
 * part ("north"): that part alone names the value when no other value starts with it.
 */
export function distinguishingHeads(values: string[]): Map<string, string> {
  const parts = values.map((value) => ({ value, parts: value.toLowerCase().split(/[_-]+/) }));
  const heads = new Map<string, string>();
  for (const {
    value,
    parts: [head, ...rest],
  } of parts) {
    if (!rest.length || head.length < 3 || !/^[a-z]+$/.test(head)) continue;
    const tail = rest.join(' ');
    const family = parts.filter((p) => p.parts.length > 1 && p.parts.slice(1).join(' ') === tail).length;
    const sameHead = parts.filter((p) => p.parts[0] === head).length;
    if (family >= 2 && sameHead === 1 && !values.includes(head)) heads.set(head, value);
  }
  return heads;
}

function findWord(text: string, word: string): number {
  const pattern = new RegExp(`(?<![a-z0-9_])${escapeRegExp(word)}(?![a-z0-9_])`);
  return text.search(pattern);
}

// Revised Romanization of Korean, as spelt in ASCII names ("강남" gangnam, "해운대" haeundae).
const INITIALS = [
  'g',
  'kk',
  'n',
  'd',
  'tt',
  'r',
  'm',
  'b',
  'pp',
  's',
  'ss',
  '',
  'j',
  'jj',
  'ch',
  'k',
  't',
  'p',
  'h',
];
const VOWELS = [
  'a',
  'ae',
  'ya',
  'yae',
  'eo',
  'e',
  'yeo',
  'ye',
  'o',
  'wa',
  'wae',
  'oe',
  'yo',
  'u',
  'wo',
  'we',
  'wi',
  'yu',
  'eu',
  'ui',
  'i',
];
const FINALS = [
  '',
  'k',
  'k',
  'k',
  'n',
  'n',
  'n',
  't',
  'l',
  'k',
  'm',
  'l',
  'l',
  'l',
  'p',
  'l',
  'm',
  'p',
  'p',
  't',
  't',
  'ng',
  't',
  't',
  'k',
  't',
  'p',
  't',
];
/** A final consonant carried over to a following vowel ("먹어" meogeo). */
const LINKED = [
  '',
  'g',
  'kk',
  'gs',
  'n',
  'nj',
  'nh',
  'd',
  'r',
  'lg',
  'lm',
  'lb',
  'ls',
  'lt',
  'lp',
  'lh',
  'm',
  'b',
  'bs',
  's',
  'ss',
  'ng',
  'j',
  'ch',
  'k',
  't',
  'p',
  'h',
];

export function romanize(hangul: string): string {
  let out = '';
  const chars = [...hangul];
  for (let i = 0; i < chars.length; i++) {
    const code = chars[i].charCodeAt(0) - 0xac00;
    if (code < 0 || code > 11171) {
      out += chars[i];
      continue;
    }
    const initial = Math.floor(code / 588);
    const vowel = Math.floor((code % 588) / 28);
    const final = code % 28;
    out += INITIALS[initial] + VOWELS[vowel];
    const next = i + 1 < chars.length ? chars[i + 1].charCodeAt(0) - 0xac00 : -1;
    const nextInitial = next >= 0 && next <= 11171 ? Math.floor(next / 588) : -1;
    if (final && nextInitial === 11) out += LINKED[final];
    else if (final === 8 && nextInitial === 5) out += 'l';
    else out += FINALS[final];
  }
  return out;
}

/** Spellings the romanisation leaves open (g/k, d/t, b/p, r/l, doubled letters) made equal. */
function loose(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/g/g, 'k')
    .replace(/d/g, 't')
    .replace(/b/g, 'p')
    .replace(/r/g, 'l')
    .replace(/(.)\1+/g, '$1');
}

/** The enum value a Korean word spells (its first two or more syllables romanised), if exactly one. */
function romanizedValue(text: string, values: string[], labels: Term[] = []): string | null {
  const candidates = new Map<string, string>();
  // One-word English labels ("suwon" for SW, "songdo" for SD) are spelt like the values they label.
  for (const { term, value } of labels) if (/^[a-z]{4,}$/.test(term)) candidates.set(loose(term), value);
  for (const value of values)
    if (/^[a-z][a-z_-]*$/i.test(value) && value.replace(/[_-]/g, '').length >= 3)
      candidates.set(loose(value), value);
  for (const [head, value] of distinguishingHeads(values))
    if (!candidates.has(loose(head))) candidates.set(loose(head), value);
  if (!candidates.size) return null;
  const found = new Set<string>();
  for (const word of text.match(/[\uac00-\ud7a3]{2,}/g) ?? [])
    for (let end = word.length; end >= 2; end--) {
      const value = candidates.get(loose(romanize(word.slice(0, end))));
      if (value) {
        found.add(value);
        break;
      }
    }
  return found.size === 1 ? [...found][0] : null;
}

/**
 * The consonants of a word as Korean borrows it (a loanword: "사이드미러" side mirror, "엑스레이" x-ray,
 * "크라운" crown, "업그레이드" upgrade), in classes the borrowing blurs (k/g/c, t/d, p/b/f/v, l/r, s/z/j/ch);
 * an English r before a consonant or at the end is not said. Korean words are romanised first.
 */
export function loanKey(word: string): string {
  const roman = /[\uac00-\ud7a3]/.test(word)
    ? romanize(word).replace(/ng/g, 'n')
    : word
        .toLowerCase()
        .replace(/[^a-z]/g, '')
        .replace(/ph/g, 'f')
        .replace(/ck/g, 'k')
        .replace(/qu/g, 'k')
        .replace(/x/g, 'ks')
        .replace(/c(?=[eiy])/g, 's')
        .replace(/r+(?=[^aeiouy]|$)/g, '')
        .replace(/(?<=[aeiou])[wy]/g, '')
        .replace(/e$/, '');
  return roman
    .replace(/[aeiouwy]/g, '')
    .replace(/h/g, '')
    .replace(/[kgcq]/g, 'k')
    .replace(/[td]/g, 't')
    .replace(/[pbfv]/g, 'p')
    .replace(/r/g, 'l')
    .replace(/[szj]|ch/g, 's')
    .replace(/(.)\1+/g, '$1');
}

/**
 * The enum value a loanword names: a Korean word of the question spelling an English value or a distinctive
 * part of one ("사이드미러" side_mirror), or an English word of the question spelling a Korean label
 * ("upgrade" for a value labelled "업그레이드"). Words of three consonants or more (four for English words), whole
 * words only.
 */
/** The consonant keys of an enum's values, distinctive parts and Korean labels, per lexicon (computed once). */
const LOAN_KEYS = new WeakMap<Term[], Map<string, Set<string>>>();

function loanwordValue(text: string, values: string[], terms: Term[]): string | null {
  let candidates = LOAN_KEYS.get(terms);
  if (!candidates) {
    const keys = new Map<string, Set<string>>();
    const add = (key: string, value: string) => {
      if (key.length >= 3) keys.set(key, (keys.get(key) ?? new Set()).add(value));
    };
    for (const value of values)
      if (/^[a-z][a-z_-]*$/i.test(value)) add(loanKey(value.replace(/[_-]/g, '')), value);
    for (const [part, value] of distinctiveParts(values)) add(loanKey(part), value);
    for (const { term, value } of terms) if (/^[\uac00-\ud7a3]+$/.test(term)) add(loanKey(term), value);
    LOAN_KEYS.set(terms, keys);
    candidates = keys;
  }
  const found = new Set<string>();
  // A Korean word spelling an English one has a syllable with the vowel ㅡ that English clusters take
  // ("스", "트", "드", "크": 엑스레이, 사이드미러, 크라운); a native word ("지난달") is no loanword.
  const korean = (text.match(/[\uac00-\ud7a3]{3,}/g) ?? [])
    .map((w) => w.replace(KO_PARTICLE, ''))
    .filter((w) => [...w].some((c) => Math.floor(((c.charCodeAt(0) - 0xac00) % 588) / 28) === 18));
  const english = (text.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => !values.includes(w));
  for (const word of [...korean, ...english]) {
    const key = loanKey(word);
    // An English word spelling a Korean label needs four consonants ("someone" is no "조명").
    if (/^[a-z]/.test(word) && key.length < 4) continue;
    const owners = candidates.get(key);
    if (owners?.size === 1) found.add([...owners][0]);
  }
  return found.size === 1 ? [...found][0] : null;
}

/** A Korean particle at the end of a word ("리콜을", "엑스레이로"). */
const KO_PARTICLE = /(?:으로|에서|이나|이랑|에|을|를|이|가|은|는|의|로|도|만|랑)$/;

/** An English word without its endings ("contracted", "partially", "housekeepers" -> "contract", "partial", "housekeep"). */
function wordStem(word: string): string {
  return word.replace(/(?:ers|er|ings|ing|ed|ly|es|s)$/, '');
}

/**
 * The enum value the question names for a property: the value, a label of it (its own description's, an
 * input's with the same values, its tool's), its Korean spelling, an inflected form of a one-word value
 * ("contracted" for contract), or a short upper-case value written as such ("L box" for L).
 */
export function enumFromText(
  text: string,
  property: PropertyInfo,
  context: EnumContext = NO_CONTEXT,
): string | null {
  const values = property.enumValues ?? [];
  if (!values.length) return null;
  const lower = normalizeText(text);
  const found = new Set<string>();
  let covered = lower;
  for (const { term, value } of enumTerms(property, context)) {
    if (!containsTerm(covered, term)) continue;
    found.add(value);
    // A longer label ("standard double") hides its words from shorter ones ("double").
    covered = covered.split(term).join(' ');
  }
  const original = text.normalize('NFC');
  for (const value of values)
    if (CODE.test(value) && new RegExp(`(?<![A-Za-z0-9])${value}(?![A-Za-z0-9])`).test(original))
      found.add(value);
  if (found.size === 1) return [...found][0];
  if (found.size > 1) return null;
  if (!context.broad) return romanizedValue(text, values);
  // "no insurance", "without a deposit": the value "none" of an input named so.
  const none = values.find((v) => /^(?:none|no|없음)$/i.test(v));
  const said = /\b(?:no|without)\s+(?:an?\s+)?([a-z]+)/g;
  if (none)
    for (const m of lower.matchAll(said))
      if (
        property.name
          .toLowerCase()
          .split(/[_\s-]+/)
          .includes(stemEnglish(m[1]))
      )
        return none;
  const stems = new Set((lower.match(/[a-z]{5,}/g) ?? []).map(wordStem));
  const inflected = values.filter((v) => /^[a-z]{5,}$/i.test(v) && stems.has(wordStem(normalizeText(v))));
  if (inflected.length === 1) return inflected[0];
  const terms = enumTerms(property, context);
  // A Korean word of three syllables or more inside one value's longer Korean label ("사상충" of "심장사상충").
  const inside = new Set<string>();
  for (const word of (lower.match(/[\uac00-\ud7a3]{3,}/g) ?? []).map((w) => w.replace(KO_PARTICLE, '')))
    if (word.length >= 3)
      for (const { term, value } of terms)
        if (term.length > word.length && term.includes(word)) inside.add(value);
  if (inside.size === 1) return [...inside][0];
  const loaned = loanwordValue(text, values, terms);
  if (loaned) return loaned;
  return romanizedValue(text, values, terms);
}

/** A pattern a string property's values follow: its `pattern`, or the shape of its description's example. */
function valuePattern(property: PropertyInfo): { regex: RegExp; specific: boolean } | null {
  const pattern = typeof property.schema.pattern === 'string' ? property.schema.pattern : null;
  if (pattern) {
    try {
      const body = pattern.replace(/^\^/, '').replace(/\$$/, '');
      // Only digits (a room number, the last four digits): needs the property's word beside it.
      // A letter class ("[가-힣]", "[A-Z]") is as distinctive as a literal letter.
      const specific = /[A-Za-z가-힣:#-]/.test(body.replace(/\\[dDsSwW]|\{[^}]*\}|\[(?:\\d|0-9|\s)*\]/g, ''));
      return { regex: new RegExp(`^(?:${body})$`), specific };
    } catch {
      return null;
    }
  }
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  const example = /(?:e\.g\.?|예:|예\)|ex\.?|such as)\s*([#A-Za-z0-9가-힣][#A-Za-z0-9가-힣-]{2,})/i.exec(
    description,
  )?.[1];
  if (!example || !/\d/.test(example)) return null;
  const shape = escapeRegExp(example)
    .replace(/\d+/g, '\\d+')
    .replace(/[\uac00-\ud7a3]/g, '[가-힣]');
  return { regex: new RegExp(`^${shape}$`, 'i'), specific: /[A-Za-z가-힣#-]/.test(example) };
}

/** Whether a string input's values have a distinctive shape (letters or punctuation besides digits). */
export function isDistinctiveShape(property: PropertyInfo): boolean {
  return Boolean(valuePattern(property)?.specific);
}

/** Whether a value (as spelt or upper-cased) has the shape of a string input. */
export function fitsShape(value: string, property: PropertyInfo): boolean {
  const shape = valuePattern(property);
  return Boolean(shape && (shape.regex.test(value) || shape.regex.test(value.toUpperCase())));
}

/**
 * The tools' string inputs with a distinctive shape (a pattern with letters or punctuation besides digits:
 * "^AB-\\d{6}$", or a description's example "e.g. AB-123456"), per tool: a token of that shape in a question
 * is a value of that input, not a name of an item the catalog knows.
 */
export function shapedInputs(
  tools: ReadonlyArray<{ name: string; properties: PropertyInfo[] }>,
): Array<{ tool: string; property: string; regex: RegExp }> {
  const shapes: Array<{ tool: string; property: string; regex: RegExp }> = [];
  for (const { name, properties } of tools)
    for (const property of properties) {
      if (property.type !== 'string' || property.enumValues) continue;
      const shape = valuePattern(property);
      if (shape?.specific) shapes.push({ tool: name, property: property.name, regex: shape.regex });
    }
  return shapes;
}

/** The tools (and inputs) whose shape a token of the question has, as spelt or upper-cased. */
export function shapeOwners(
  token: string,
  shapes: ReadonlyArray<{ tool: string; property: string; regex: RegExp }>,
): Array<{ tool: string; property: string }> {
  // A code or a number has a digit: a word that happens to fit ("BRANCH" for six letters or digits) is a word.
  if (!/\d/.test(token)) return [];
  return shapes.filter((s) => s.regex.test(token) || s.regex.test(token.toUpperCase()));
}

/** Korean counters (written before a particle, see counterOf) and the English unit nouns they count. */
const COUNTERS: Record<string, string[]> = {
  박: ['night'],
  명: ['guest', 'people', 'person', 'adult', 'size', 'headcount', 'party'],
  분: ['minute', 'guest', 'people', 'person'],
  층: ['floor', 'level'],
  호: ['room', 'number', 'unit'],
  개: ['count', 'item', 'quantity', 'piece'],
  일: ['day'],
  시간: ['hour'],
  주: ['week'],
  개월: ['month'],
  달: ['month'],
  년: ['year'],
  대: ['vehicle', 'unit', 'count'],
  건: ['count', 'case'],
  회: ['time', 'count'],
  번: ['number', 'time'],
  학년: ['grade'],
  반: ['class'],
  리터: ['liter', 'litre'],
  킬로: ['km', 'kilometer'],
  원: ['krw', 'won', 'price', 'amount'],
};

function propertyWords(property: PropertyInfo): Set<string> {
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  const words = new Set<string>();
  for (const word of normalizeText(`${property.name.replace(/_/g, ' ')} ${description}`).match(
    /[a-z]+|[\uac00-\ud7a3]+/g,
  ) ?? [])
    words.add(/^[a-z]+$/.test(word) ? stemEnglish(word) : word);
  return words;
}

/** A Korean counter as written ("박스" of "30박스", "개월" of "3개월간"): the longest known one it starts with. */
function counterOf(unit: string): string {
  const known = Object.keys(COUNTERS)
    .filter((c) => unit === c || (unit.startsWith(c) && COUNTER_TAIL.test(unit.slice(c.length))))
    .sort((a, b) => b.length - a.length)[0];
  return known ?? unit;
}

/** What follows a counter in the same word: a particle or a postposition ("3일간", "2박에", "5개씩", "30일 이내"). */
const COUNTER_TAIL =
  /^(?:이|가|을|를|은|는|에|로|으로|씩|간|동안|째|정도|짜리|만|도|의|까지|부터|이나|나|이상|이하|미만|밑|내|안|치|짜리|만큼|쯤|이면|면)/;

/** Whether a unit word next to a number is what the property counts. */
function unitFits(unit: string, words: Set<string>): boolean {
  const lower = normalizeText(unit);
  if (!lower) return false;
  if (/^[a-z]+$/.test(lower))
    return [lower, stemEnglish(lower), lower.replace(/es$/, '')].some((form) => words.has(form));
  const nouns = COUNTERS[counterOf(lower)] ?? [];
  if (nouns.some((noun) => words.has(noun))) return true;
  return [...words].some(
    (word) => /[\uac00-\ud7a3]/.test(word) && (word.startsWith(lower) || lower.startsWith(word)),
  );
}

/** Units of time a count of days is also said in, with their days ("2 weeks" is 14 days, "한 달" 30). */
const DAYS_IN: Array<[RegExp, number]> = [
  [/^(?:weeks?|wks?|주|주일|주간)$/, 7],
  [/^(?:months?|달|개월)$/, 30],
];
/** Inputs counting things ordered or shipped ("quantity", "parcel_count", "수량"): any counter counts for them. */
const COUNT_INPUT = /\b(?:quantity|qty|count|pieces|units)\b|수량|개수/;
/** Inputs holding money ("claimed_amount", "price", "KRW", "금액"). */
const MONEY_INPUT = /amount|price|cost|fee|charge|krw|won\b|금액|요금|비용|원\)/;
const MONEY_UNIT = /^(?:원|won|krw)$/;
/** Units of measure, which are no counters of things. */
const MEASURE_UNIT =
  /^(?:kg|g|km|m|cm|mm|l|ml|lb|lbs|kgs|원|won|krw|시간|분|초|일|주|달|개월|년|시|hours?|mins?|minutes?|days?|weeks?|months?|years?|nights?|박|층|호|percent|%)$/;

/**
 * The number the question gives for a numeric property: one with the unit the property counts (a count of
 * days also in weeks or months); for a count of things, one said as a count ("x30", "10 of", "order 40")
 * or with any counter no other numeric input of the tool takes; for money, one in won, else the one large
 * number the question gives.
 */
export function numberFromText(
  text: string,
  property: PropertyInfo,
  siblings: PropertyInfo[] = [],
): number | null {
  const words = propertyWords(property);
  const name = `${property.name.replace(/_/g, ' ')} ${typeof property.schema.description === 'string' ? normalizeText(property.schema.description) : ''}`;
  const mentions = numberMentions(text);
  const strong: number[] = [];
  const weak: number[] = [];
  const countsDays = words.has('day') || words.has('days') || [...words].some((w) => /^(?:일수|일)$/.test(w));
  const others = siblings.filter((s) => s !== property && (s.type === 'integer' || s.type === 'number'));
  const otherFits = (unit: string) => others.some((o) => unitFits(unit, propertyWords(o)));
  const counts = COUNT_INPUT.test(name);
  const money = MONEY_INPUT.test(name);
  for (const mention of mentions) {
    const unit = /^[\uac00-\ud7a3]/.test(mention.unit) ? counterOf(mention.unit) : mention.unit;
    if (unitFits(unit, words)) strong.push(mention.value);
    else if (countsDays && DAYS_IN.some(([unitPattern]) => unitPattern.test(unit)))
      strong.push(mention.value * DAYS_IN.find(([unitPattern]) => unitPattern.test(unit))![1]);
    else if (money && MONEY_UNIT.test(unit)) strong.push(mention.value);
    else if (counts && mention.counted) strong.push(mention.value);
    else if (counts && unit && !MEASURE_UNIT.test(unit) && !otherFits(unit)) weak.push(mention.value);
    else if (money && mention.value >= 1000 && !otherFits(unit)) weak.push(mention.value);
  }
  const lower = normalizeText(text);
  const before = /\b([a-z]+)\s*(?:#|no\.?\s*)?(\d+(?:\.\d+)?)\b/g;
  for (const match of lower.matchAll(before))
    if (/^[a-z]+$/.test(match[1]) && unitFits(match[1], words)) strong.push(Number(match[2]));
  const pick = (found: number[]) => {
    const distinct = [...new Set(found)];
    return distinct.length === 1 ? distinct[0] : null;
  };
  const value = strong.length ? pick(strong) : pick(weak);
  if (value === null) return null;
  const schema = property.schema as { minimum?: number; maximum?: number };
  if (property.type === 'integer' && !Number.isInteger(value)) return null;
  if (typeof schema.minimum === 'number' && value < schema.minimum) return null;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return null;
  return value;
}

/** Times of day the question states, as HH:MM ("오후 1시", "1pm", "13:30", "1시 반"). */
function timesOfDay(text: string): string[] {
  const lower = normalizeText(text);
  const times: string[] = [];
  const push = (hour: number, minute: number) => {
    if (hour >= 0 && hour < 24 && minute >= 0 && minute < 60)
      times.push(`${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`);
  };
  for (const m of lower.matchAll(/(오전|오후|저녁|밤|아침)?\s*(\d{1,2})\s*시(?:\s*(반|\d{1,2}\s*분))?/g)) {
    let hour = Number(m[2]);
    if ((m[1] === '오후' || m[1] === '저녁' || m[1] === '밤') && hour < 12) hour += 12;
    push(hour, m[3] === '반' ? 30 : m[3] ? parseInt(m[3], 10) : 0);
  }
  for (const m of lower.matchAll(/\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)/g)) {
    let hour = Number(m[1]) % 12;
    if (m[3].startsWith('p')) hour += 12;
    push(hour, m[2] ? Number(m[2]) : 0);
  }
  for (const m of lower.matchAll(/\b([01]?\d|2[0-3]):([0-5]\d)\b/g)) push(Number(m[1]), Number(m[2]));
  return times;
}

/** A string the question gives for a property with a pattern or an example in its description. */
export function patternFromText(
  text: string,
  property: PropertyInfo,
  /** The tool's other inputs: digits alone are read for the inputs of one shape when no other input takes them. */
  siblings: PropertyInfo[] = [],
): string | null {
  const shape = valuePattern(property);
  if (!shape) return null;
  const words = propertyWords(property);
  const tokens = text.split(/[\s,;!?()[\]{}"'“”‘’]+/).filter(Boolean);
  const found = new Set<string>();
  /** Digits alone, without a word naming them ("Mapo 1119 toilet", "28502 to 48058"). */
  const bare: string[] = [];
  tokens.forEach((raw, i) => {
    const token = raw.replace(/[.。:]+$/, '');
    // A Korean particle or counter after the value ("HS2611034번", "1203호").
    const stem = token.replace(/[\uac00-\ud7a3]+$/, '');
    for (const candidate of [token, stem]) {
      if (!candidate || !shape.regex.test(candidate)) continue;
      const unit = token.slice(stem.length);
      const neighbours = [tokens[i - 1], tokens[i - 2], tokens[i + 1]].filter(Boolean);
      const context =
        shape.specific ||
        (unit && unitFits(unit, words)) ||
        neighbours.some((w) => {
          const word = w.replace(/[^a-z\uac00-\ud7a3]/gi, '');
          return (word.length >= 3 || /[\uac00-\ud7a3]{2}/.test(word)) && unitFits(word, words);
        });
      if (context) found.add(candidate);
      else if (/^\d+$/.test(token)) bare.push(token);
      break;
    }
  });
  if (!found.size && shape.regex.test('00:00'))
    for (const time of timesOfDay(text)) if (shape.regex.test(time)) found.add(time);
  if (found.size === 1) return [...found][0];
  if (found.size || !bare.length || !siblings.length) return null;
  // Digits alone: the inputs of this shape take them in order, when as many are given as there are inputs
  // and no number input of the tool takes them ("order 100" is a quantity).
  const pattern = typeof property.schema.pattern === 'string' ? property.schema.pattern : null;
  const sameShape = siblings.filter(
    (s) =>
      s.type === 'string' &&
      !s.enumValues &&
      typeof s.schema.pattern === 'string' &&
      s.schema.pattern === pattern,
  );
  const numeric = siblings.filter((s) => s.type === 'integer' || s.type === 'number');
  const taken = new Set(
    numeric
      .map((s) => numberFromText(text, s, siblings))
      .filter((v) => v !== null)
      .map(String),
  );
  const free = [...new Set(bare)].filter((token) => !taken.has(String(Number(token))));
  const at = sameShape.indexOf(property);
  return pattern && at >= 0 && free.length === sameShape.length ? free[at] : null;
}

/** Enum values (and string shapes, as `pattern:<pattern or name>`) that the inputs of more than one tool take. */
export function sharedEnumValues(properties: PropertyInfo[][]): Set<string> {
  const owners = new Map<string, number>();
  for (const toolProperties of properties) {
    // A string shape (its pattern, else the property's name) counts as a value too.
    const values = new Set(
      toolProperties.flatMap((p) => p.enumValues ?? (p.type === 'string' ? [shapeKey(p)] : [])),
    );
    for (const value of values) owners.set(value, (owners.get(value) ?? 0) + 1);
  }
  return new Set([...owners].filter(([, n]) => n > 1).map(([value]) => value));
}

/** The key of a string property's shape among shared values: its pattern, else its name. */
export function shapeKey(property: PropertyInfo): string {
  return `pattern:${typeof property.schema.pattern === 'string' ? property.schema.pattern : property.name}`;
}

/** Words of a flag's name that say nothing of what it flags ("abnormal_only", "include_closed"). */
const FLAG_FILLER = /^(?:only|include|includes|including|is|has|have|show|flag|with|filter|enabled|yes)$/;
const NEGATED_BEFORE = /(?:\bnot|n't|\bnever|\bwithout|\bno|안)\s+(?:\S+\s+){0,2}$/;
const NEGATED_AFTER = /^\S*\s*(?:\S+\s+)?(?:안\s|않|없|말고)/;

/**
 * A flag (boolean input) the question raises: a word of its name ("abnormal" for abnormal_only, "urgent"),
 * or a long word of its description (a Korean word of three syllables or more), unless negated ("not
 * transferred", "이관 안 한") which sets it false.
 */
export function booleanFromText(text: string, property: PropertyInfo): boolean | null {
  if (property.type !== 'boolean') return null;
  const lower = normalizeText(text);
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  const named = property.name
    .toLowerCase()
    .split(/[_\s-]+/)
    .filter((word) => word.length >= 4 && !FLAG_FILLER.test(word));
  const described = (normalizeText(description).match(/[\uac00-\ud7a3]{3,}/g) ?? []).map((word) =>
    word.replace(/(?:만|을|를|이|가|은|는|의|로|으로)$/, ''),
  );
  // The language's words for a flag's name word too ("급하게", "rush" for urgent).
  const synonyms = named.flatMap((word) => COMMON_VALUE_WORDS[word] ?? []);
  for (const word of [
    ...named.map((w) => stemEnglish(w).replace(/(?:ed|ing)$/, '')),
    ...described,
    ...synonyms,
  ]) {
    if (word.length < 3) continue;
    const at = /^[a-z]+$/.test(word)
      ? lower.search(new RegExp(`(?<![a-z])${escapeRegExp(word)}`))
      : lower.indexOf(word);
    if (at < 0) continue;
    const negated = NEGATED_BEFORE.test(lower.slice(0, at)) || NEGATED_AFTER.test(lower.slice(at));
    return !negated;
  }
  return null;
}

/** "For late_checkout: ...", "only for room_change", "cancel 시", "(add_note 일 때)": the value an input serves. */
const SERVES =
  /(?:^|[\s(])(?:only\s+)?(?:for|with|when|if)\s+([a-z][a-z0-9_]*)\b|([a-z][a-z0-9_]*)\s*(?:일\s*때|인\s*경우|시)(?![가-힣])/gi;

/**
 * Enum values the inputs the question fills imply: an input described "For room_change" serves that value
 * of another enum input of its tool ("action"), which takes it when the question named none (it was left
 * out or given its first value for want of one), provided the filled inputs agree.
 */
export function impliedEnums(
  properties: PropertyInfo[],
  params: Record<string, unknown>,
  guessed: ReadonlySet<string>,
): Record<string, string> {
  const implied = new Map<string, Set<string>>();
  for (const property of properties) {
    if (params[property.name] === undefined || guessed.has(property.name)) continue;
    const description = typeof property.schema.description === 'string' ? property.schema.description : '';
    for (const match of description.matchAll(SERVES)) {
      const value = match[1] ?? match[2];
      const owners = properties.filter((p) => p !== property && p.enumValues?.includes(value));
      if (owners.length !== 1) continue;
      const owner = owners[0].name;
      if (params[owner] !== undefined && !guessed.has(owner)) continue;
      implied.set(owner, (implied.get(owner) ?? new Set()).add(value));
    }
  }
  const values: Record<string, string> = {};
  for (const [owner, set] of implied) if (set.size === 1) values[owner] = [...set][0];
  return values;
}
