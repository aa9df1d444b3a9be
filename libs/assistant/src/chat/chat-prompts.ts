import type { Passage } from './search/passage';
import { passageLabel } from './search/passage';

export function routerPrompt(webSearch: boolean): string {
  return [
    'You route questions of a company assistant. Reply with exactly one label and nothing else:',
    'INTERNAL_SEARCH - the question needs the company documents (policies, runbooks, manuals, internal facts).',
    ...(webSearch
      ? ['WEB_SEARCH - the question needs public or current information from the internet.']
      : []),
    'CHITCHAT - greetings, thanks, small talk, or questions about the conversation itself.',
    'When unsure, reply INTERNAL_SEARCH.',
  ].join('\n');
}

export const SEARCH_AGENT_PROMPT = [
  'You are a company assistant that answers from search results only.',
  'Search before answering. Use a short keyword query; search again with other words only if the results miss the point.',
  'Cite the results you use as [n] with their numbers. If the results do not contain the answer, say so plainly; never invent facts.',
  'Answer in the language of the question.',
].join(' ');

export const GRADER_PROMPT = [
  'You check whether search results can answer a question.',
  'Reply PASS if at least one result contains information that answers it, FAIL otherwise. Reply with the single word only.',
].join(' ');

export const REWRITER_PROMPT = [
  'Rewrite the question as a better search query for a company document search: the key terms, synonyms',
  'and formal wording a policy or manual would use. Reply with the query only, on one line, in the language of the question.',
].join(' ');

export const ANSWER_PROMPT = [
  'You are a company assistant. Answer the question from the search results only and cite them as [n].',
  'If they do not contain the answer, say so plainly. Answer in the language of the question.',
].join(' ');

export const ANSWER_WITHOUT_SEARCH_PROMPT = [
  'You are a company assistant. The document search is unavailable right now, so answer without search results:',
  'say first that you could not search the company documents, then answer briefly from general knowledge only if you can,',
  'without inventing company-specific facts or citations. Answer in the language of the question.',
].join(' ');

export const CHITCHAT_PROMPT =
  'You are a friendly company assistant that can also search the company documents. Reply briefly and naturally, in the language of the user.';

export function numberedPassages(passages: Passage[], start = 1): string {
  if (!passages.length) return '(no results)';
  return passages
    .map((passage, i) => `[${start + i}] ${passageLabel(passage)}\n${passage.text.slice(0, 1500)}`)
    .join('\n\n');
}
