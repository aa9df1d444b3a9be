import { Logger } from '@nestjs/common';
import { retry } from '@app/platform';
import { EmbeddingProvider } from './embedding-provider';

export interface OpenAiEmbeddingOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  dimensions?: number;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
}

/** A failed embeddings call after retries; `retryable` says whether trying later may help. */
export class EmbeddingRequestError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmbeddingRequestError';
  }
}

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Client for any OpenAI-compatible `POST {base}/v1/embeddings` (OpenAI, Ollama, vLLM, TEI):
 * batches inputs, retries 429/5xx/network errors with exponential backoff and jitter (honouring
 * Retry-After), and aborts each request after `timeoutMs`.
 */
export class OpenAiEmbeddingProvider extends EmbeddingProvider {
  private readonly logger = new Logger('OpenAiEmbeddingProvider');
  private probedDimensions: Promise<number> | undefined;
  readonly model: string;

  constructor(private readonly options: OpenAiEmbeddingOptions) {
    super();
    this.model = options.model;
  }

  private get endpoint(): string {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    return base.endsWith('/v1') ? `${base}/embeddings` : `${base}/v1/embeddings`;
  }

  dimensions(): Promise<number> {
    if (this.options.dimensions) return Promise.resolve(this.options.dimensions);
    this.probedDimensions ??= this.request(['dimension probe'])
      .then(([vector]) => vector.length)
      .catch((error: unknown) => {
        this.probedDimensions = undefined;
        throw error;
      });
    return this.probedDimensions;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      vectors.push(...(await this.request(texts.slice(start, start + this.options.batchSize))));
    }
    return vectors;
  }

  private request(input: string[]): Promise<number[][]> {
    return retry(
      () =>
        this.send(input).catch((error: unknown) => {
          throw error instanceof EmbeddingRequestError
            ? error
            : new EmbeddingRequestError((error as Error).message, null, true);
        }),
      {
        retries: this.options.maxRetries,
        baseDelayMs: this.options.retryBaseMs,
        jitter: 0.25,
        isRetryable: (failure) => (failure as EmbeddingRequestError).retryable,
        waitOf: (failure) => (failure as EmbeddingRequestError & { waitMs?: number }).waitMs,
        onRetry: ({ error, attempt }) =>
          this.logger.warn({
            msg: 'embeddings request failed, retrying',
            attempt,
            error: (error as Error).message,
          }),
      },
    );
  }

  private async send(input: string[]): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input, encoding_format: 'float' }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new EmbeddingRequestError(
        timedOut
          ? `embeddings request timed out after ${this.options.timeoutMs} ms`
          : `embeddings request failed: ${(error as Error).message}`,
        null,
        true,
      );
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => '')).slice(0, 300);
      const retryable = response.status === 429 || response.status >= 500 || response.status === 408;
      const failure = new EmbeddingRequestError(
        `embeddings server answered ${response.status}: ${body}`,
        response.status,
        retryable,
      ) as EmbeddingRequestError & { waitMs?: number };
      failure.waitMs = retryAfterMs(response.headers.get('retry-after'));
      throw failure;
    }
    const payload = (await response.json()) as EmbeddingsResponse;
    const data = payload.data ?? [];
    if (data.length !== input.length) {
      throw new EmbeddingRequestError(
        `embeddings server returned ${data.length} vectors for ${input.length} inputs`,
        response.status,
        false,
      );
    }
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map(({ embedding }) => {
      if (!Array.isArray(embedding) || embedding.some((value) => typeof value !== 'number')) {
        throw new EmbeddingRequestError(
          'embeddings server returned a non-numeric vector',
          response.status,
          false,
        );
      }
      if (this.options.dimensions && embedding.length !== this.options.dimensions) {
        throw new EmbeddingRequestError(
          `expected ${this.options.dimensions}-dimensional vectors, got ${embedding.length}`,
          response.status,
          false,
        );
      }
      return embedding as number[];
    });
  }
}
