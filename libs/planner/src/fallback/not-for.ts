import { hintTexts } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { contentTerms, normalizeText } from '../knowledge/text-match.util';
import { stemWord } from './question-analysis';

/** A published text's words as matched against a question: English words by stem, Korean stems as they are. */
interface TextTerms {
  text: string;
  terms: string[];
}

const TERMS = new Map<string, string[]>();
function termsOf(text: string): string[] {
  let terms = TERMS.get(text);
  if (!terms) {
    terms = [
      ...new Set([...contentTerms(text)].map((term) => (/^[a-z]+$/.test(term) ? stemWord(term) : term))),
    ].filter((term) => !term.includes('_'));
    if (TERMS.size > 20_000) TERMS.clear();
    TERMS.set(text, terms);
  }
  return terms;
}

/** The question's words: its English stems, and its text for Korean stems (matched inside words). */
interface QuestionWords {
  lower: string;
  stems: Set<string>;
}

function questionWords(query: string): QuestionWords {
  const lower = normalizeText(query);
  return { lower, stems: new Set((lower.match(/[a-z][a-z0-9]+/g) ?? []).map(stemWord)) };
}

function shared(question: QuestionWords, text: TextTerms): number {
  return text.terms.filter((term) =>
    /[\uac00-\ud7a3]/.test(term) ? question.lower.includes(term) : question.stems.has(term),
  ).length;
}

/** The `not_for` text of a tool the question says, if it says it: all its words, or two and most of them. */
function saidNotFor(question: QuestionWords, tool: ToolDefinition): { text: string; words: number } | null {
  let best: { text: string; words: number } | null = null;
  for (const text of hintTexts(tool.planning_hints?.not_for ?? undefined)) {
    const terms = { text, terms: termsOf(text) };
    const words = shared(question, terms);
    const said =
      terms.terms.length > 0 &&
      (words === terms.terms.length || (words >= 2 && words * 2 > terms.terms.length));
    if (said && (!best || words > best.words)) best = { text, words };
  }
  return best;
}

/** The most words the question shares with one of the tool's own examples or keywords. */
function ownWords(question: QuestionWords, tool: ToolDefinition): number {
  const hints = tool.planning_hints;
  const texts = [...hintTexts(hints?.examples ?? undefined), ...hintTexts(hints?.keywords ?? undefined)];
  return Math.max(0, ...texts.map((text) => shared(question, { text, terms: termsOf(text) })));
}

/**
 * What the tools' owners said they are not for (`not_for` hints), applied to the chosen tools: a tool whose
 * `not_for` text the question says, in more of its words than any of the tool's own examples or keywords,
 * is not for this question. When that text names another tool ("creating a booking (use book_visit)"), that
 * tool is the one asked for.
 */
export function applyNotFor(
  query: string,
  tools: ToolDefinition[],
  chosen: ToolDefinition[],
): ToolDefinition[] {
  const question = questionWords(query);
  let result = chosen;
  for (const tool of chosen) {
    const said = saidNotFor(question, tool);
    if (!said || said.words <= ownWords(question, tool)) continue;
    result = result.filter((t) => t !== tool);
    const named = tools.find((t) => t !== tool && new RegExp(`\\b${t.name}\\b`).test(said.text));
    if (named && !result.includes(named)) result = [...result, named];
  }
  return result;
}
