import { type FakeLlmReply, FakeLlmServer, type RecordedLlmRequest } from './fake-llm-server';

export type ChatStep = 'router' | 'agent' | 'grader' | 'rewriter' | 'answer' | 'chitchat';
export type ChatStepHandler = (request: RecordedLlmRequest) => FakeLlmReply;

export function chatStepOf(request: RecordedLlmRequest): ChatStep {
  const system: string = request.body.messages[0].content;
  if (system.startsWith('You route')) return 'router';
  if (system.startsWith('You check whether')) return 'grader';
  if (system.startsWith('Rewrite the question')) return 'rewriter';
  if (system.includes('answers from search results only')) return 'agent';
  if (system.includes('Answer the question from the search results')) return 'answer';
  return 'chitchat';
}

export const lastLlmMessage = (request: RecordedLlmRequest) =>
  request.body.messages[request.body.messages.length - 1];

/** A scripted model of the RAG chat that answers each step of the chat; tests override the steps they are about. */
export function chatScript(overrides: Partial<Record<ChatStep, ChatStepHandler>> = {}): ChatStepHandler {
  const defaults: Record<ChatStep, ChatStepHandler> = {
    router: () => FakeLlmServer.text('INTERNAL_SEARCH'),
    agent: (request) =>
      lastLlmMessage(request).role === 'tool'
        ? FakeLlmServer.text('연차 휴가는 HR 포털에서 신청합니다 [1].')
        : FakeLlmServer.toolCall('search_documents', { query: '휴가 신청' }),
    grader: () => FakeLlmServer.text('PASS'),
    rewriter: () => FakeLlmServer.text('배포 롤백 계획'),
    answer: () => FakeLlmServer.text('배포는 화요일과 목요일에 합니다 [1].'),
    chitchat: () => FakeLlmServer.text('안녕하세요! 무엇을 도와드릴까요?'),
  };
  return (request) => ({ ...defaults, ...overrides })[chatStepOf(request)](request);
}
