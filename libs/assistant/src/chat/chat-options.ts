/** Limits of the RAG chat, read from the environment by the module. */
export abstract class ChatOptions {
  abstract readonly historyTurns: number;
  abstract readonly maxToolCalls: number;
  abstract readonly topK: number;
  /** Vector-branch cosine similarity below which a document passage is not cited (0: off)... */
  abstract readonly minRelevance: number;
  /** ...unless its keyword score (BM25 over the question's best, in [0, 1]) reaches this: keyword evidence. */
  abstract readonly minKeywordRelevance: number;
  abstract readonly retryBaseDelayMs: number;
  abstract readonly timeoutMs: number;
  /** Retries per component; a model step without a value uses the LLM client's LLM_MAX_RETRIES. */
  abstract readonly retries: ChatRetries;
  /** On a failed search: say so (`report`), or let the model answer without tools (the seed's rule). */
  abstract readonly onSearchError: 'report' | 'answer_without_tools';
}

export interface ChatRetries {
  router?: number;
  grader?: number;
  rewriter?: number;
  /** The search agent's, the answer's and the chitchat's model calls. */
  answer?: number;
  search: number;
}
