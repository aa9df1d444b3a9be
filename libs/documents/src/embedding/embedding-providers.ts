import { AppConfig } from '@app/platform';
import { EmbeddingProvider, EmbeddingProviders } from './embedding-provider';
import { HashEmbeddingProvider } from './hash-embedding.provider';
import { OpenAiEmbeddingProvider } from './openai-embedding.provider';

export const DEFAULT_OFFLINE_MODEL = 'hash-v1-1024';

/** The configured provider (remote when EMBEDDINGS_BASE_URL is set), plus any hash-v1-D model. */
export class ConfiguredEmbeddingProviders extends EmbeddingProviders {
  readonly configured: EmbeddingProvider;

  constructor(config: AppConfig) {
    super();
    const baseUrl = config.get('EMBEDDINGS_BASE_URL');
    const model = config.get('EMBEDDINGS_MODEL');
    if (baseUrl) {
      this.configured = new OpenAiEmbeddingProvider({
        baseUrl,
        model: model ?? 'text-embedding-3-small',
        apiKey: config.get('EMBEDDINGS_API_KEY'),
        dimensions: config.get('EMBEDDINGS_DIMENSIONS'),
        batchSize: config.get('EMBEDDINGS_BATCH_SIZE'),
        timeoutMs: config.get('EMBEDDINGS_TIMEOUT_MS'),
        maxRetries: config.get('EMBEDDINGS_MAX_RETRIES'),
        retryBaseMs: config.get('EMBEDDINGS_RETRY_BASE_MS'),
      });
    } else {
      this.configured =
        HashEmbeddingProvider.fromModel(model ?? DEFAULT_OFFLINE_MODEL) ??
        new HashEmbeddingProvider(config.get('EMBEDDINGS_DIMENSIONS') ?? 1024);
    }
  }

  resolve(model: string): EmbeddingProvider | undefined {
    if (model === this.configured.model) return this.configured;
    return HashEmbeddingProvider.fromModel(model);
  }
}
