import { Injectable } from '@nestjs/common';
import { contentTerms, normalizeText, queryHasTerm } from '@app/planner';
import { ChatTrace } from './chat-trace';
import { GRADER_PROMPT, numberedPassages, REWRITER_PROMPT } from './chat-prompts';
import type { DecisionSource, Grade } from './chat.types';
import type { Passage } from './search/passage';

/** Whether any passage shares a content term with the question (the grade without a model). */
export function gradeByOverlap(question: string, passages: Passage[]): Grade {
  const terms = contentTerms(question);
  if (!terms.size) return passages.length ? 'PASS' : 'FAIL';
  return passages.some((passage) => {
    const text = normalizeText(
      `${passage.text} ${passage.kind === 'document' ? passage.document_name : passage.title}`,
    );
    const textTerms = contentTerms(text);
    return [...terms].some((term) => queryHasTerm(text, textTerms, term));
  })
    ? 'PASS'
    : 'FAIL';
}

/** The question's content terms as a keyword query (the rewrite without a model). */
export function keywordQuery(question: string): string {
  return [...contentTerms(question)].join(' ');
}

/** Grader (PASS | FAIL) and query rewriter of the chat, with the seed's fallbacks: PASS, original query. */
@Injectable()
export class ChatJudgesService {
  async grade(
    question: string,
    passages: Passage[],
    trace: ChatTrace,
  ): Promise<{ grade: Grade; source: DecisionSource }> {
    if (!passages.length) return { grade: 'FAIL', source: 'rules' };
    if (!trace.llmConfigured) return { grade: gradeByOverlap(question, passages), source: 'rules' };
    const response = await trace.callLlm('grader', {
      messages: [
        { role: 'system', content: GRADER_PROMPT },
        { role: 'user', content: `Question: ${question}\n\nSearch results:\n${numberedPassages(passages)}` },
      ],
      maxTokens: 10,
      temperature: 0,
    });
    if (response instanceof Error) {
      trace.warnings.push(`The grader failed (${response.message}); the results were accepted.`);
      return { grade: 'PASS', source: 'fallback' };
    }
    const text = (response.content ?? '').trim().toUpperCase();
    if (/^\W*FAIL\b/.test(text)) return { grade: 'FAIL', source: 'llm' };
    if (/^\W*PASS\b/.test(text)) return { grade: 'PASS', source: 'llm' };
    trace.warnings.push('The grader answered neither PASS nor FAIL; the results were accepted.');
    return { grade: 'PASS', source: 'fallback' };
  }

  async rewrite(question: string, trace: ChatTrace): Promise<{ query: string; source: DecisionSource }> {
    if (!trace.llmConfigured) {
      const keywords = keywordQuery(question);
      return { query: keywords || question, source: 'rules' };
    }
    const response = await trace.callLlm('rewriter', {
      messages: [
        { role: 'system', content: REWRITER_PROMPT },
        { role: 'user', content: question },
      ],
      maxTokens: 100,
      temperature: 0,
    });
    const query =
      response instanceof Error
        ? ''
        : (response.content ?? '')
            .trim()
            .split('\n')[0]
            .replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, '')
            .trim();
    if (!query) {
      trace.warnings.push(
        `The rewriter failed (${response instanceof Error ? response.message : 'empty answer'}); searched again with the original question.`,
      );
      return { query: question, source: 'fallback' };
    }
    return { query: query.slice(0, 500), source: 'llm' };
  }
}
