import type { Passage } from './passage';

/**
 * The tenant's document store as the chat needs it: the best passages for a query. Bound to the
 * document search of @app/documents; errors are thrown (the chat retries, then answers honestly).
 */
export abstract class DocumentRetriever {
  abstract search(
    tenantId: string,
    query: string,
    topK: number,
  ): Promise<Array<Extract<Passage, { kind: 'document' }>>>;
}
