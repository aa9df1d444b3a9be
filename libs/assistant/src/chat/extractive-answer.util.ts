import { contentTerms, isKorean, normalizeText, queryHasTerm } from '@app/planner';
import type { Citation } from './chat.types';
import type { Passage } from './search/passage';
import { passageLabel } from './search/passage';

const EXCERPT_CHARS = 320;

/** The sentences of a passage that share the most terms with the question, up to ~320 characters. */
export function excerptFor(question: string, passage: Passage): string {
  const terms = [...contentTerms(question)];
  const sentences = passage.text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?。]|다\.)\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (!sentences.length) return '';
  const scored = sentences.map((sentence, index) => {
    const lower = normalizeText(sentence);
    const sentenceTerms = contentTerms(lower);
    return { index, sentence, score: terms.filter((t) => queryHasTerm(lower, sentenceTerms, t)).length };
  });
  const best = [...scored].sort((a, b) => b.score - a.score || a.index - b.index)[0];
  let excerpt = best.sentence;
  for (let i = best.index + 1; i < sentences.length && excerpt.length < 40; i++)
    excerpt += ` ${sentences[i]}`;
  return excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS - 1)}…` : excerpt;
}

export function toCitations(question: string, passages: Passage[]): Citation[] {
  return passages.map((passage, i) => ({ ...passage, index: i + 1, excerpt: excerptFor(question, passage) }));
}

/** An answer without a model: the best excerpts of the top passages, each with its citation. */
export function extractiveAnswer(question: string, citations: Citation[]): string {
  const korean = isKorean(question);
  if (!citations.length) return noResultsAnswer(question);
  const lines = citations
    .slice(0, 3)
    .map((c) => `- ${c.excerpt || c.text.slice(0, EXCERPT_CHARS)} [${c.index}] (${passageLabel(c)})`);
  const head = korean ? '찾은 문서에서 관련 내용을 옮깁니다:' : 'From the documents found:';
  return `${head}\n${lines.join('\n')}`;
}

export function noResultsAnswer(question: string): string {
  return isKorean(question)
    ? '관련 문서를 찾지 못했습니다. 다른 표현으로 다시 질문해 주세요.'
    : 'I found no documents that answer this. Try asking with other words.';
}

export function searchFailedAnswer(question: string, error: string): string {
  return isKorean(question)
    ? `지금은 문서를 검색할 수 없어 답변하지 못했습니다 (${error}). 잠시 후 다시 시도해 주세요.`
    : `I could not search the documents just now (${error}), so I cannot answer this. Please try again later.`;
}

export function chitchatTemplate(message: string): string {
  return isKorean(message)
    ? '안녕하세요! 사내 문서에 대해 궁금한 점을 물어보시면 찾아서 답해 드릴게요.'
    : 'Hello! Ask me about your documents and I will look it up.';
}
