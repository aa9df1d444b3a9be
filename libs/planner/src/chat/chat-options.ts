/** Limits of the RAG chat, read from the environment by the module. */
export abstract class ChatOptions {
  abstract readonly historyTurns: number;
  abstract readonly maxToolCalls: number;
  abstract readonly topK: number;
  /** Vector-branch cosine similarity below which a document passage is not cited (0: off). */
  abstract readonly minRelevance: number;
  abstract readonly retryBaseDelayMs: number;
  abstract readonly timeoutMs: number;
}
