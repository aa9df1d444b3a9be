import { Injectable } from '@nestjs/common';
import { AppException, ErrorKind, retry } from '@app/platform';
import type { LlmMessage, LlmToolSpec } from '@app/planner';
import { ChatOptions } from './chat-options';
import { numberedPassages, SEARCH_AGENT_PROMPT } from './chat-prompts';
import { ChatTrace } from './chat-trace';
import type { ChatRoute, ChatToolCall } from './chat.types';
import { DocumentRetriever } from './search/document-retriever';
import { Passage, passageKey } from './search/passage';
import { WebSearchProvider } from './search/web-search.provider';

/** Tool calls left for one question (the seed's MAX_TOOL_CALLS). */
export class ToolBudget {
  used = 0;
  constructor(readonly max: number) {}
  get remaining(): number {
    return this.max - this.used;
  }
}

export interface SearchAttempt {
  /** The model's answer from the passages; null without a model or when it failed. */
  answer: string | null;
  passages: Passage[];
  /** Every search of the attempt failed (not merely found nothing). */
  searchFailed: string | null;
}

type SearchRoute = Exclude<ChatRoute, 'CHITCHAT'>;
const TOOL_OF: Record<SearchRoute, ChatToolCall['tool']> = {
  INTERNAL_SEARCH: 'search_documents',
  WEB_SEARCH: 'web_search',
};

function searchTool(route: SearchRoute): LlmToolSpec {
  return {
    name: TOOL_OF[route],
    description:
      route === 'INTERNAL_SEARCH'
        ? 'Search the company documents (hybrid keyword and semantic search); returns numbered passages.'
        : 'Search the public web; returns numbered results.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Search keywords' } },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

/** The agent step of the chat: the model searches with the route's tool (bounded) and answers with citations. */
@Injectable()
export class ChatSearchAgentService {
  constructor(
    private readonly documents: DocumentRetriever,
    private readonly web: WebSearchProvider,
    private readonly options: ChatOptions,
  ) {}

  async run(input: {
    tenantId: string;
    route: SearchRoute;
    question: string;
    history: LlmMessage[];
    budget: ToolBudget;
    trace: ChatTrace;
  }): Promise<SearchAttempt> {
    const { route, question, budget, trace } = input;
    const gathered: Passage[] = [];
    const errors: string[] = [];
    let searches = 0;
    const search = async (query: string): Promise<{ fresh: Passage[]; error: string | null }> => {
      budget.used += 1;
      searches += 1;
      const result = await this.search(input.tenantId, route, query, trace);
      if (result.error) errors.push(result.error);
      const fresh = result.passages.filter((p) => !gathered.some((g) => passageKey(g) === passageKey(p)));
      gathered.push(...fresh);
      return { fresh, error: result.error };
    };
    const outcome = (answer: string | null): SearchAttempt => ({
      answer,
      passages: gathered,
      searchFailed: searches > 0 && errors.length === searches ? errors[errors.length - 1] : null,
    });

    if (!trace.llmConfigured) {
      if (budget.remaining > 0) await search(question);
      return outcome(null);
    }
    const tool = searchTool(route);
    const messages: LlmMessage[] = [
      { role: 'system', content: SEARCH_AGENT_PROMPT },
      ...input.history,
      { role: 'user', content: question },
    ];
    for (;;) {
      const canSearch = budget.remaining > 0;
      const response = await trace.callLlm('agent', {
        messages,
        ...(canSearch
          ? { tools: [tool], toolChoice: searches === 0 ? ('required' as const) : ('auto' as const) }
          : {}),
      });
      if (response instanceof Error) {
        if (searches === 0 && canSearch) await search(question);
        return outcome(null);
      }
      if (!response.toolCalls.length) return outcome(response.content?.trim() || null);
      // Offered no tool and still asking for one: the model will not answer; quote the passages instead.
      if (!canSearch) return outcome(null);
      messages.push({ role: 'assistant', content: response.content, tool_calls: response.toolCalls });
      for (const call of response.toolCalls) {
        let content: string;
        if (call.name !== tool.name) content = `Unknown tool ${call.name}; use ${tool.name}.`;
        else if (budget.remaining <= 0)
          content = 'The search budget is used up: answer from the results above.';
        else {
          const start = gathered.length + 1;
          const { fresh, error } = await search(this.queryOf(call.arguments, question));
          content = error
            ? this.options.onSearchError === 'answer_without_tools'
              ? `The search failed (${error}); answer without search results, from what you know, and say that the search was unavailable.`
              : `The search failed (${error}); say that you could not search.`
            : fresh.length
              ? numberedPassages(fresh, start)
              : '(no new results)';
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
  }

  /** One search through the route's provider, retried (CHAT_SEARCH_RETRIES) with 1 s / 2 s backoff; an error becomes an empty result. */
  async search(
    tenantId: string,
    route: SearchRoute,
    query: string,
    trace: ChatTrace,
  ): Promise<{ passages: Passage[]; error: string | null }> {
    const started = performance.now();
    const call: ChatToolCall = {
      tool: TOOL_OF[route],
      query,
      success: false,
      result_count: 0,
      attempts: 0,
      error: null,
      duration_ms: 0,
    };
    trace.toolCalls.push(call);
    trace.checkCancelled();
    trace.emit('step.started', { step: 'search', tool: call.tool, query });
    try {
      const passages = await retry<Passage[]>(
        (attempt) => {
          call.attempts = attempt;
          return route === 'WEB_SEARCH'
            ? this.web.search(query, this.options.topK, trace.signal, tenantId)
            : this.documents.search(tenantId, query, this.options.topK);
        },
        {
          retries: this.options.retries.search,
          baseDelayMs: this.options.retryBaseDelayMs,
          isRetryable: (error) => !(error instanceof AppException && error.kind === ErrorKind.INVALID_INPUT),
        },
      );
      Object.assign(call, { success: true, result_count: passages.length });
      return { passages, error: null };
    } catch (error) {
      call.error = (error as Error).message;
      trace.warnings.push(`${call.tool} failed after ${call.attempts} attempt(s): ${call.error}`);
      return { passages: [], error: call.error };
    } finally {
      call.duration_ms = Math.round(performance.now() - started);
      trace.searchMs += call.duration_ms;
      trace.emit('tool.result', { step: 'search', ...call });
    }
  }

  private queryOf(rawArguments: string, fallback: string): string {
    try {
      const parsed = JSON.parse(rawArguments) as { query?: unknown };
      if (typeof parsed.query === 'string' && parsed.query.trim()) return parsed.query.trim().slice(0, 500);
    } catch {
      // a malformed call searches with the question itself
    }
    return fallback;
  }
}
