import { Injectable } from '@nestjs/common';
import { LlmClient, LlmMessage } from '@app/planner';
import { RequestContext, type RunObserver } from '@app/platform';
import { ChatException } from './chat.exception';
import { ChatJudgesService, gradeByOverlap } from './chat-judges.service';
import { ChatOptions } from './chat-options';
import {
  ANSWER_PROMPT,
  ANSWER_WITHOUT_SEARCH_PROMPT,
  CHITCHAT_PROMPT,
  numberedPassages,
} from './chat-prompts';
import { ChatRouterService } from './chat-router.service';
import { ChatSearchAgentService, SearchAttempt, ToolBudget } from './chat-search-agent.service';
import { ChatTrace } from './chat-trace';
import type { ChatRequest, ChatResult, ChatRoute, Citation, DecisionSource, Grade } from './chat.types';
import {
  chitchatTemplate,
  extractiveAnswer,
  noResultsAnswer,
  searchFailedAnswer,
  toCitations,
} from './extractive-answer.util';
import { ChatRepository } from './persistence/chat.repository';
import type { Passage } from './search/passage';

interface Answer {
  text: string;
  source: ChatResult['answer_source'];
  passages: Passage[];
}

/**
 * The agentic RAG chat: router -> search agent -> grader -> (one rewrite and a second search on
 * FAIL) -> answer with citations; chitchat is answered directly. Each question and answer is stored
 * in the conversation, and the last turns go to the model with the next question.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly repository: ChatRepository,
    private readonly llm: LlmClient,
    private readonly router: ChatRouterService,
    private readonly agent: ChatSearchAgentService,
    private readonly judges: ChatJudgesService,
    private readonly options: ChatOptions,
  ) {}

  /**
   * Answers one question of a conversation. With an observer (a streamed request) each step, search and
   * answer token is reported as it happens; the observer going away stops the remaining steps.
   */
  async chat(request: ChatRequest, observer?: RunObserver): Promise<ChatResult> {
    const started = performance.now();
    const conversation = request.conversationId
      ? await this.repository.findConversation(request.tenantId, request.userId, request.conversationId)
      : await this.repository.createConversation(
          request.tenantId,
          request.userId,
          request.message.slice(0, 200),
        );
    if (!conversation) throw ChatException.conversationNotFound(request.conversationId ?? '');
    const previous = await this.repository.recentMessages(
      request.tenantId,
      conversation.id,
      this.options.historyTurns * 2,
    );
    const history: LlmMessage[] = previous.map((m) => ({ role: m.role, content: m.content }));
    const ids = {
      request_id: request.requestId ?? null,
      trace_id: request.traceId ?? null,
      key_id: request.keyId ?? null,
      caller: request.caller ?? 'api',
    };
    const question = await this.repository.appendMessage(
      request.tenantId,
      conversation.id,
      'user',
      request.message,
      null,
      ids,
    );
    RequestContext.setRunId(question.id);
    observer?.emit('run.started', {
      conversation_id: conversation.id,
      question_id: question.id,
      user_id: request.userId,
      ...ids,
    });

    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const trace = new ChatTrace(
      this.llm,
      request.model,
      observer ? AbortSignal.any([timeout, observer.signal]) : timeout,
      this.options.retries,
      observer,
    );
    const { route, source: routeSource } = await this.router.route(request.message, history, trace);
    let grade: { grade: Grade; source: DecisionSource } | null = null;
    const queries: string[] = [];
    let rewritten = false;
    let answer: Answer;
    if (route === 'CHITCHAT') {
      answer = await this.chitchat(request.message, history, trace);
    } else {
      const outcome = await this.searchAndAnswer(request, route, history, trace, queries);
      answer = outcome.answer;
      grade = outcome.grade;
      rewritten = outcome.rewritten;
    }

    trace.checkCancelled();
    // Answers not written by a streaming model (extractive, template, the search agent's) arrive whole.
    if (!trace.streamedAnswer) trace.emit('answer.delta', { step: 'answer', text: answer.text });
    const citations = toCitations(request.message, answer.passages);
    const documents = [
      ...new Map(
        citations.flatMap((c) =>
          c.kind === 'document'
            ? [[c.document_id, { document_id: c.document_id, document_name: c.document_name }]]
            : [],
        ),
      ).values(),
    ];
    const body = {
      answer: answer.text,
      answer_source: answer.source,
      route,
      route_source: routeSource,
      grade: grade?.grade ?? null,
      grade_source: grade?.source ?? null,
      rewritten,
      search_queries: queries,
      citations,
      documents,
      tool_calls: trace.toolCalls,
      llm_calls: trace.llmCalls,
      warnings: trace.warnings,
    };
    const stored = await this.repository.appendMessage(
      request.tenantId,
      conversation.id,
      'assistant',
      answer.text,
      {
        ...body,
        answer: undefined,
      },
      ids,
    );
    return {
      conversation_id: conversation.id,
      message_id: stored.id,
      question_id: question.id,
      user_id: request.userId,
      ...ids,
      ...body,
      timings: {
        total_ms: Math.round(performance.now() - started),
        llm_ms: trace.llmCalls.reduce((sum, call) => sum + call.latency_ms, 0),
        search_ms: trace.searchMs,
      },
    };
  }

  private async searchAndAnswer(
    request: ChatRequest,
    route: Exclude<ChatRoute, 'CHITCHAT'>,
    history: LlmMessage[],
    trace: ChatTrace,
    queries: string[],
  ): Promise<{ answer: Answer; grade: { grade: Grade; source: DecisionSource } | null; rewritten: boolean }> {
    const question = request.message;
    // One search is kept back so that a FAIL can always be followed by the rewritten search.
    const budget = new ToolBudget(Math.max(1, this.options.maxToolCalls - 1));
    const first: SearchAttempt = await this.agent.run({
      tenantId: request.tenantId,
      route,
      question,
      history,
      budget,
      trace,
    });
    queries.push(...trace.toolCalls.map((call) => call.query));
    if (first.searchFailed && !first.passages.length) {
      return {
        answer: await this.answerAfterSearchError(question, first.searchFailed, first.answer, history, trace),
        grade: null,
        rewritten: false,
      };
    }
    const grade = await this.judges.grade(question, first.passages, trace);
    if (grade.grade === 'PASS' || this.options.maxToolCalls - budget.used <= 0) {
      if (grade.grade === 'FAIL')
        trace.warnings.push('The results were graded FAIL but no search was left for a rewrite.');
      const text = first.answer ?? null;
      return {
        answer: text
          ? { text, source: 'llm', passages: first.passages }
          : {
              text: extractiveAnswer(question, toCitations(question, first.passages)),
              source: 'extractive',
              passages: first.passages,
            },
        grade,
        rewritten: false,
      };
    }

    const rewrite = await this.judges.rewrite(question, trace);
    const second = await this.agent.search(request.tenantId, route, rewrite.query, trace);
    queries.push(rewrite.query);
    const rewritten = rewrite.query !== question;
    // Without a model nothing reads the second results, so they must share a term with the question to be quoted.
    const unrelated = !trace.llmConfigured && gradeByOverlap(question, second.passages) === 'FAIL';
    if (second.error && !second.passages.length) {
      return {
        answer: await this.answerAfterSearchError(question, second.error, null, history, trace),
        grade,
        rewritten,
      };
    }
    if (!second.passages.length || unrelated) {
      return {
        answer: { text: noResultsAnswer(question), source: 'template', passages: [] },
        grade,
        rewritten,
      };
    }
    return { answer: await this.answerFrom(question, second.passages, history, trace), grade, rewritten };
  }

  private async answerFrom(
    question: string,
    passages: Passage[],
    history: LlmMessage[],
    trace: ChatTrace,
  ): Promise<Answer> {
    const citations: Citation[] = toCitations(question, passages);
    if (trace.llmConfigured) {
      const response = await trace.callLlm('answer', {
        messages: [
          { role: 'system', content: ANSWER_PROMPT },
          ...history,
          {
            role: 'user',
            content: `Question: ${question}\n\nSearch results:\n${numberedPassages(passages)}`,
          },
        ],
      });
      const text = response instanceof Error ? null : response.content?.trim();
      if (text) return { text, source: 'llm', passages };
      trace.warnings.push('The answer was quoted from the passages because the model failed.');
    }
    return { text: extractiveAnswer(question, citations), source: 'extractive', passages };
  }

  /**
   * The search failed after its retries. `report` (default) says so; `answer_without_tools` (the seed's
   * rule) has the model answer without search results, saying the search was unavailable, and falls back
   * to the report without a model.
   */
  private async answerAfterSearchError(
    question: string,
    error: string,
    agentAnswer: string | null,
    history: LlmMessage[],
    trace: ChatTrace,
  ): Promise<Answer> {
    const report: Answer = { text: searchFailedAnswer(question, error), source: 'template', passages: [] };
    if (this.options.onSearchError !== 'answer_without_tools' || !trace.llmConfigured) return report;
    trace.warnings.push(
      'The search failed; the answer was written without search results (CHAT_ON_SEARCH_ERROR).',
    );
    if (agentAnswer) return { text: agentAnswer, source: 'llm', passages: [] };
    const response = await trace.callLlm('answer', {
      messages: [
        { role: 'system', content: ANSWER_WITHOUT_SEARCH_PROMPT },
        ...history,
        { role: 'user', content: question },
      ],
    });
    const text = response instanceof Error ? null : response.content?.trim();
    return text ? { text, source: 'llm', passages: [] } : report;
  }

  private async chitchat(message: string, history: LlmMessage[], trace: ChatTrace): Promise<Answer> {
    if (trace.llmConfigured) {
      const response = await trace.callLlm('chitchat', {
        messages: [
          { role: 'system', content: CHITCHAT_PROMPT },
          ...history,
          { role: 'user', content: message },
        ],
      });
      const text = response instanceof Error ? null : response.content?.trim();
      if (text) return { text, source: 'llm', passages: [] };
    }
    return { text: chitchatTemplate(message), source: 'template', passages: [] };
  }

  async conversation(tenantId: string, userId: string, id: string) {
    const conversation = await this.repository.findConversation(tenantId, userId, id);
    if (!conversation) throw ChatException.conversationNotFound(id);
    const messages = await this.repository.allMessages(tenantId, id);
    return { conversation, messages };
  }

  listConversations(
    tenantId: string,
    userId: string,
    limit: number,
    offset: number,
    turn: { request_id?: string; trace_id?: string } = {},
  ) {
    return this.repository.listConversations(tenantId, userId, limit, offset, turn);
  }

  async deleteConversation(tenantId: string, userId: string, id: string): Promise<void> {
    if (!(await this.repository.deleteConversation(tenantId, userId, id)))
      throw ChatException.conversationNotFound(id);
  }
}
