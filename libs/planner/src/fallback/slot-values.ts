import { containsTerm, escapeRegExp, normalizeText, stemEnglish } from '../knowledge/text-match.util';
import type { PropertyInfo } from '../plan/schema-introspection.util';

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

const LEXICONS = new WeakMap<object, Term[]>();

const SEPARATOR = /[,;/|()=:\n]+/;
const LABEL_MAX = 30;

/** Words an enum value or its description labels are spelt with, lower-cased; longest first. */
export function enumTerms(property: PropertyInfo): Term[] {
  const cached = LEXICONS.get(property.schema);
  if (cached) return cached;
  const values = property.enumValues ?? [];
  const terms: Term[] = [];
  const add = (term: string, value: string) => {
    const clean = normalizeText(term)
      .replace(/^[\s\-–—.:=]+|[\s\-–—.:=]+$/g, '')
      .trim();
    if (clean.length < 2 || clean.length > LABEL_MAX || /^\d+([-–]\d+)?$/.test(clean)) return;
    terms.push({ term: clean, value });
  };
  for (const value of values) {
    add(value, value);
    if (/[_-]/.test(value)) add(value.replace(/[_-]+/g, ' '), value);
  }
  // A family of compound values ("north_gate", "south_gate"): the part that tells them apart names one.
  for (const [head, value] of distinguishingHeads(values)) add(head, value);
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  if (description && values.length) {
    const lower = normalizeText(description);
    // Where each value stands in the description: what follows it up to the next value is its label.
    const places = values
      .map((value) => ({ value, at: findWord(lower, normalizeText(value)) }))
      .filter((p) => p.at >= 0)
      .sort((a, b) => a.at - b.at);
    const labelled = new Set<string>();
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
    if (!valueFirst && before.length * 2 >= values.length) {
      for (const { value, match } of before) for (const label of match![1].split(/[/|]/)) add(label, value);
      places.length = 0;
    }
    places.forEach((place, i) => {
      const end = i + 1 < places.length ? places[i + 1].at : lower.length;
      const after = lower.slice(place.at + place.value.length, end);
      const labels = after
        .split(SEPARATOR)
        .map((l) => l.trim())
        .filter(Boolean);
      for (const label of labels.slice(0, 6)) {
        if (values.some((v) => normalizeText(v) === label)) continue;
        add(label, place.value);
        labelled.add(place.value);
      }
    });
    // A parenthesised list in the enum's order that names no value: labels by position.
    for (const group of lower.match(/\(([^()]+)\)/g) ?? []) {
      const parts = group
        .slice(1, -1)
        .split(/\s*[/,|]\s*/)
        .filter(Boolean);
      if (parts.length === values.length && !parts.some((p) => values.includes(p)))
        parts.forEach((part, i) => add(part, values[i]));
    }
  }
  // A term two values share says nothing about either.
  const owners = new Map<string, Set<string>>();
  for (const { term, value } of terms) owners.set(term, (owners.get(term) ?? new Set()).add(value));
  const unique = terms
    .filter((t, i) => owners.get(t.term)!.size === 1 && terms.findIndex((u) => u.term === t.term) === i)
    .sort((a, b) => b.term.length - a.term.length);
  LEXICONS.set(property.schema, unique);
  return unique;
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
function romanizedValue(text: string, values: string[]): string | null {
  const candidates = new Map<string, string>();
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

/** The enum value the question names for a property, from the value, its labels or its Korean spelling. */
export function enumFromText(text: string, property: PropertyInfo): string | null {
  const values = property.enumValues ?? [];
  if (!values.length) return null;
  const lower = normalizeText(text);
  const found = new Set<string>();
  let covered = lower;
  for (const { term, value } of enumTerms(property)) {
    if (!containsTerm(covered, term)) continue;
    found.add(value);
    // A longer label ("standard double") hides its words from shorter ones ("double").
    covered = covered.split(term).join(' ');
  }
  if (found.size === 1) return [...found][0];
  if (found.size > 1) return null;
  return romanizedValue(text, values);
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

/** Korean counters and the English unit nouns they count. */
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

/** Whether a unit word next to a number is what the property counts. */
function unitFits(unit: string, words: Set<string>): boolean {
  const lower = normalizeText(unit);
  if (/^[a-z]+$/.test(lower)) return words.has(stemEnglish(lower)) || words.has(lower);
  const nouns = COUNTERS[lower] ?? [];
  if (nouns.some((noun) => words.has(noun))) return true;
  return [...words].some((word) => /[\uac00-\ud7a3]/.test(word) && word.startsWith(lower));
}

/** The number the question gives for a numeric property: one with the unit the property counts. */
export function numberFromText(text: string, property: PropertyInfo): number | null {
  const words = propertyWords(property);
  const lower = normalizeText(text);
  const found: number[] = [];
  const after = /(\d+(?:\.\d+)?)\s*(개월|시간|학년|리터|킬로|[\uac00-\ud7a3]|[a-z]+)/g;
  for (const match of lower.matchAll(after)) if (unitFits(match[2], words)) found.push(Number(match[1]));
  const before = /\b([a-z]+)\s*(?:#|no\.?\s*)?(\d+(?:\.\d+)?)\b/g;
  for (const match of lower.matchAll(before))
    if (/^[a-z]+$/.test(match[1]) && unitFits(match[1], words)) found.push(Number(match[2]));
  const distinct = [...new Set(found)];
  if (distinct.length !== 1) return null;
  const value = distinct[0];
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
export function patternFromText(text: string, property: PropertyInfo): string | null {
  const shape = valuePattern(property);
  if (!shape) return null;
  const words = propertyWords(property);
  const tokens = text.split(/[\s,;!?()[\]{}"'“”‘’]+/).filter(Boolean);
  const found = new Set<string>();
  tokens.forEach((raw, i) => {
    const token = raw.replace(/[.。]+$/, '');
    // A Korean particle or counter after the value ("HS2611034번", "1203호").
    const stem = token.replace(/[\uac00-\ud7a3]+$/, '');
    for (const candidate of [token, stem]) {
      if (!candidate || !shape.regex.test(candidate)) continue;
      const unit = token.slice(stem.length);
      const neighbours = [tokens[i - 1], tokens[i - 2], tokens[i + 1]].filter(Boolean);
      const context =
        shape.specific ||
        (unit && unitFits(unit, words)) ||
        neighbours.some((w) => unitFits(w.replace(/[^a-z\uac00-\ud7a3]/gi, ''), words));
      if (context) found.add(candidate);
      break;
    }
  });
  if (!found.size && shape.regex.test('00:00'))
    for (const time of timesOfDay(text)) if (shape.regex.test(time)) found.add(time);
  return found.size === 1 ? [...found][0] : null;
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
  for (const word of [...named.map((w) => stemEnglish(w).replace(/(?:ed|ing)$/, '')), ...described]) {
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
