const ASCII_TERM = /^[\x20-\x7e]+$/;
const HANGUL_RUN = /[\uac00-\ud7a3]{2,}/g;
const ENGLISH_WORD = /[a-z][a-z0-9]{2,}/g;
const KOREAN_PARTICLES =
  /(으로|에서|에게|부터|까지|처럼|들의|들이|들을|들은|들|의|을|를|이|가|은|는|에|와|과|로|도|만)$/;
const ENGLISH_STOPWORDS = new Set(
  'the and for with from that this what which who whose how are was were have has had into over per its their them they you your can could should would will all any each show list give tell find get let about like than then when where use used using etc such'.split(
    ' ',
  ),
);

const TERM_PATTERNS = new Map<string, RegExp>();

export function normalizeText(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether `term` occurs in `text` (both lower-cased). ASCII terms need word boundaries (so "pro"
 * does not match "product"), but may be followed by Hangul particles ("pro환경"); Korean terms
 * match as substrings because particles attach to words.
 */
export function containsTerm(text: string, term: string): boolean {
  const needle = term.trim();
  if (!needle) return false;
  if (!ASCII_TERM.test(needle)) return text.includes(needle);
  if (!text.includes(needle)) return false;
  let pattern = TERM_PATTERNS.get(needle);
  if (!pattern) {
    pattern = new RegExp(`(?<![a-z0-9_])${escapeRegExp(needle)}(?:s|es)?(?![a-z0-9_])`);
    if (TERM_PATTERNS.size > 5000) TERM_PATTERNS.clear();
    TERM_PATTERNS.set(needle, pattern);
  }
  return pattern.test(text);
}

export function stemEnglish(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Content terms of a text for relevance scoring: stemmed English words and Korean stems. */
export function contentTerms(text: string): Set<string> {
  const lower = normalizeText(text);
  const terms = new Set<string>();
  for (const word of lower.match(ENGLISH_WORD) ?? []) {
    if (!ENGLISH_STOPWORDS.has(word)) terms.add(stemEnglish(word));
  }
  for (const run of lower.match(HANGUL_RUN) ?? []) {
    const stem = run.replace(KOREAN_PARTICLES, '');
    if (stem.length >= 2) terms.add(stem);
  }
  for (const token of lower.split(/[^a-z0-9_]+/)) if (token.includes('_')) terms.add(token);
  return terms;
}

/** Whether a content term occurs in a query: Korean stems as substrings, English words as stems. */
export function queryHasTerm(queryLower: string, queryTerms: Set<string>, term: string): boolean {
  if (/[\uac00-\ud7a3]/.test(term)) return queryLower.includes(term);
  return queryTerms.has(term);
}

export function isKorean(text: string): boolean {
  return /[\uac00-\ud7a3]/.test(text);
}

/** Rough token count for budgeting: ~4 ASCII characters per token, one per other character. */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}
