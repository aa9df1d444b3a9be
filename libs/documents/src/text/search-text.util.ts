const HANGUL_CHAR = /[\uAC00-\uD7A3\u1100-\u11FF\u3130-\u318F]/;

export interface TextToken {
  text: string;
  hangul: boolean;
}

export const isHangul = (ch: string): boolean => HANGUL_CHAR.test(ch);

/**
 * NFKC, lower case, maximal letter/digit runs, split where the script changes between Hangul and
 * anything else ("mri는" -> "mri", "는"). Shared by the keyword index, keyword queries and the
 * hashed embedder so the three agree on what a word is.
 */
export function tokenize(text: string): TextToken[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const tokens: TextToken[] = [];
  for (const match of normalized.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    let start = 0;
    let previous = isHangul(word[0]);
    for (let i = 1; i < word.length; i++) {
      const current = isHangul(word[i]);
      if (current !== previous) {
        tokens.push({ text: word.slice(start, i), hangul: previous });
        start = i;
        previous = current;
      }
    }
    tokens.push({ text: word.slice(start), hangul: previous });
  }
  return tokens;
}

/**
 * Korean attaches particles to words without a space ("휴가를", "휴가는"), so whole tokens rarely
 * match between a query and a document. Character bigrams do: both contain "휴가".
 */
export function hangulBigrams(token: string): string[] {
  if (token.length < 2) return [token];
  const grams: string[] = [];
  for (let i = 0; i + 2 <= token.length; i++) grams.push(token.slice(i, i + 2));
  return grams;
}

/**
 * Particles and question endings Korean glues to the end of a word, longest first. Kept short and
 * conservative: an ending is only removed when at least two characters of the word remain, so a
 * noun that merely ends in one of these syllables keeps its own bigrams.
 */
const HANGUL_SUFFIXES = [
  // question and copula endings (questions end in them, passages rarely do)
  '이었습니까',
  '였습니까',
  '입니까',
  '습니까',
  '인가요',
  '였나요',
  '었나요',
  '이었나',
  '었는가',
  '였는가',
  '인가',
  '인지',
  '였던',
  '이었던',
  '이라는',
  '이라고',
  '라는',
  '라고',
  '이란',
  '이다',
  '였다',
  '이며',
  '이고',
  // case and topic particles
  '에서부터',
  '으로부터',
  '로부터',
  '에게서',
  '한테서',
  '에서는',
  '에서도',
  '에서의',
  '에게는',
  '으로는',
  '으로도',
  '으로서',
  '으로써',
  '로서',
  '로써',
  '에서',
  '에게',
  '한테',
  '께서',
  '까지',
  '부터',
  '보다',
  '처럼',
  '만큼',
  '마다',
  '조차',
  '에는',
  '에도',
  '에의',
  '와는',
  '과는',
  '으로',
  '은',
  '는',
  '이',
  '가',
  '을',
  '를',
  '의',
  '에',
  '로',
  '와',
  '과',
  '도',
  '만',
  '란',
].sort((a, b) => b.length - a.length);

/** A Hangul word without the particle or question ending attached to it ("임종석이" -> "임종석"). */
export function stripHangulSuffix(token: string): string {
  for (const suffix of HANGUL_SUFFIXES) {
    if (token.length - suffix.length >= 2 && token.endsWith(suffix)) return token.slice(0, -suffix.length);
  }
  return token;
}

/**
 * Index and query terms of a Hangul word: the bigrams of its stem, so the bigram spanning stem and
 * particle ("석이" in "임종석이") neither matches unrelated words nor dilutes BM25's length norm.
 */
export function hangulTerms(token: string): string[] {
  return hangulBigrams(stripHangulSuffix(token));
}

/** The text the stored tsvector is built from: words as they are, Hangul runs as stem bigrams. */
export function toIndexText(text: string): string {
  const parts: string[] = [];
  for (const token of tokenize(text)) {
    if (token.hangul) parts.push(...hangulTerms(token.text));
    else parts.push(token.text);
  }
  return parts.join(' ');
}

/** Words websearch_to_tsquery would read as operators. */
const WEBSEARCH_OPERATORS = new Set(['or', 'and', 'not']);

/** Distinct query terms, preprocessed exactly like the indexed text. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(query)) {
    if (token.hangul) for (const gram of hangulTerms(token.text)) terms.add(gram);
    else if (!WEBSEARCH_OPERATORS.has(token.text)) terms.add(token.text);
  }
  return [...terms];
}

/**
 * A websearch_to_tsquery input matching any term (ranking rewards chunks that match more of them).
 * Terms are letters and digits only, so user text can never inject tsquery syntax.
 */
export function toKeywordQuery(query: string): string | null {
  const terms = queryTerms(query);
  return terms.length > 0 ? terms.join(' or ') : null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A short passage around the first query term found, with terms wrapped in <mark>. Latin terms
 * match as word prefixes (a crude stand-in for the stemmer), Hangul bigrams anywhere.
 */
export function highlightSnippet(text: string, query: string, maxChars = 240): string {
  const patterns = queryTerms(query)
    .filter((term) => term.length >= 2 || isHangul(term))
    .map((term) =>
      isHangul(term[0])
        ? escapeRegExp(term)
        : `(?<![\\p{L}\\p{N}])${escapeRegExp(term.length > 5 ? term.slice(0, term.length - 2) : term)}[\\p{L}\\p{N}]*`,
    );
  const flat = text.replace(/\s+/g, ' ').trim();
  if (patterns.length === 0) return flat.slice(0, maxChars);
  const matcher = new RegExp(patterns.join('|'), 'giu');
  const first = matcher.exec(flat);
  const start = first ? Math.max(0, first.index - Math.floor(maxChars / 4)) : 0;
  let window = flat.slice(start, start + maxChars);
  if (start > 0) window = `…${window}`;
  if (start + maxChars < flat.length) window = `${window}…`;
  return window.replace(new RegExp(patterns.join('|'), 'giu'), (hit) => `<mark>${hit}</mark>`);
}
