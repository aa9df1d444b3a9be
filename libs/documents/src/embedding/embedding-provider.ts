/**
 * The embedding port. One model id names one vector space: chunks record the model that embedded
 * them, and a query is only ever compared with vectors of the same model.
 */
export abstract class EmbeddingProvider {
  abstract readonly model: string;
  /** Vector size; may ask the server once. */
  abstract dimensions(): Promise<number>;
  /** One vector per text, in order. Batching, retries and timeouts are the adapter's business. */
  abstract embed(texts: string[]): Promise<number[][]>;
}

/** Every provider this process can use: the configured one, plus the offline ones that need nothing. */
export abstract class EmbeddingProviders {
  abstract readonly configured: EmbeddingProvider;
  /** The provider for a model id, or undefined when this process cannot produce that model's vectors. */
  abstract resolve(model: string): EmbeddingProvider | undefined;
}
