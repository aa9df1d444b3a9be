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

/** The text the stored tsvector is built from: words as they are, Hangul runs as bigrams. */
export function toIndexText(text: string): string {
  const parts: string[] = [];
  for (const token of tokenize(text)) {
    if (token.hangul) parts.push(...hangulBigrams(token.text));
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
    if (token.hangul) for (const gram of hangulBigrams(token.text)) terms.add(gram);
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
