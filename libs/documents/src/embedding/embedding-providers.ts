import { EmbeddingProvider, EmbeddingProviders } from './embedding-provider';
import { HashEmbeddingProvider } from './hash-embedding.provider';
import { OpenAiEmbeddingProvider } from './openai-embedding.provider';
import { DocumentsConfig } from '../documents.config';

export const DEFAULT_OFFLINE_MODEL = 'hash-v1-1024';

/** The configured provider (remote when EMBEDDINGS_BASE_URL is set), plus any hash-v1-D model. */
export class ConfiguredEmbeddingProviders extends EmbeddingProviders {
  readonly configured: EmbeddingProvider;

  constructor(config: DocumentsConfig) {
    super();
    const baseUrl = config.EMBEDDINGS_BASE_URL;
    const model = config.EMBEDDINGS_MODEL;
    if (baseUrl) {
      this.configured = new OpenAiEmbeddingProvider({
        baseUrl,
        model: model ?? 'text-embedding-3-small',
        apiKey: config.EMBEDDINGS_API_KEY,
        dimensions: config.EMBEDDINGS_DIMENSIONS,
        batchSize: config.EMBEDDINGS_BATCH_SIZE,
        timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
        maxRetries: config.EMBEDDINGS_MAX_RETRIES,
        retryBaseMs: config.EMBEDDINGS_RETRY_BASE_MS,
      });
    } else {
      this.configured =
        HashEmbeddingProvider.fromModel(model ?? DEFAULT_OFFLINE_MODEL) ??
        new HashEmbeddingProvider(config.EMBEDDINGS_DIMENSIONS ?? 1024);
    }
  }

  resolve(model: string): EmbeddingProvider | undefined {
    if (model === this.configured.model) return this.configured;
    return HashEmbeddingProvider.fromModel(model);
  }
}
