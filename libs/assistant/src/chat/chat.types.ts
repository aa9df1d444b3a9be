import type { Passage } from './search/passage';
import type { LlmCallRecord } from '@app/planner';

export const CHAT_ROUTES = ['INTERNAL_SEARCH', 'WEB_SEARCH', 'CHITCHAT'] as const;
export type ChatRoute = (typeof CHAT_ROUTES)[number];
export type Grade = 'PASS' | 'FAIL';
/** `llm`: the model decided; `rules`: no model configured; `fallback`: the model failed (error matrix). */
export type DecisionSource = 'llm' | 'rules' | 'fallback';
export type ChatStep = 'router' | 'agent' | 'grader' | 'rewriter' | 'answer' | 'chitchat';

export interface ChatLlmCall extends LlmCallRecord {
  step: ChatStep;
}

export interface ChatToolCall {
  tool: 'search_documents' | 'web_search';
  query: string;
  success: boolean;
  result_count: number;
  attempts: number;
  error: string | null;
  duration_ms: number;
}

export type Citation = Passage & { index: number; excerpt: string };

export interface ChatRequest {
  tenantId: string;
  userId: string;
  message: string;
  conversationId?: string;
  model?: string;
  /** Stored with the turn's messages, to find them from a log line or a complaint. */
  requestId?: string;
  traceId?: string;
  keyId?: string;
  /** How the turn was asked: api (HTTP) or mcp. */
  caller?: ChatCaller;
}

export const CHAT_CALLERS = ['api', 'mcp', 'agent', 'ask'] as const;
export type ChatCaller = (typeof CHAT_CALLERS)[number];

export interface ChatResult {
  conversation_id: string;
  /** The stored answer. */
  message_id: string;
  /** The stored question of this turn. */
  question_id: string;
  /** The key's user the conversation belongs to. */
  user_id: string;
  request_id: string | null;
  trace_id: string | null;
  key_id: string | null;
  caller: ChatCaller;
  answer: string;
  /** `llm`: written by the model; `extractive`: quoted from the passages; `template`: a fixed text. */
  answer_source: 'llm' | 'extractive' | 'template';
  route: ChatRoute;
  route_source: DecisionSource;
  grade: Grade | null;
  grade_source: DecisionSource | null;
  rewritten: boolean;
  search_queries: string[];
  citations: Citation[];
  documents: Array<{ document_id: string; document_name: string }>;
  tool_calls: ChatToolCall[];
  llm_calls: ChatLlmCall[];
  warnings: string[];
  timings: { total_ms: number; llm_ms: number; search_ms: number };
}
