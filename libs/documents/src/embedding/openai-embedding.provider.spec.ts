import { startEmbeddingsServer, EmbeddingsServer } from '../../../../test/support/embeddings-server';
import { EmbeddingRequestError, OpenAiEmbeddingProvider } from './openai-embedding.provider';

describe('OpenAiEmbeddingProvider against a real HTTP server', () => {
  let server: EmbeddingsServer;
  beforeEach(async () => {
    server = await startEmbeddingsServer({ dimensions: 16 });
  });
  afterEach(() => server.close());

  const provider = (overrides: Partial<ConstructorParameters<typeof OpenAiEmbeddingProvider>[0]> = {}) =>
    new OpenAiEmbeddingProvider({
      baseUrl: server.url,
      model: 'test-embed',
      batchSize: 3,
      timeoutMs: 2000,
      maxRetries: 2,
      retryBaseMs: 10,
      ...overrides,
    });

  it('batches inputs and returns vectors in input order', async () => {
    const texts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];
    const vectors = await provider().embed(texts);
    expect(server.requests.map((r) => r.length)).toEqual([3, 3, 1]);
    expect(vectors).toHaveLength(7);
    const [again] = await provider().embed(['delta']);
    expect(vectors[3]).toEqual(again);
  });

  it('retries 503 and 429 with backoff, then succeeds', async () => {
    server.failNext(1, 503);
    server.failNext(1, 429, { 'retry-after': '0' });
    const vectors = await provider().embed(['one']);
    expect(vectors[0]).toHaveLength(16);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after the retry budget, and does not retry a 400', async () => {
    server.failNext(5, 500);
    await expect(provider().embed(['one'])).rejects.toMatchObject({ status: 500, retryable: true });
    server.failNext(1, 400);
    const failure = await provider({ maxRetries: 5 })
      .embed(['one'])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EmbeddingRequestError);
    expect(failure).toMatchObject({ status: 400, retryable: false });
  });

  it('times out a slow server', async () => {
    server.setDelay(500);
    await expect(provider({ timeoutMs: 100, maxRetries: 0 }).embed(['slow'])).rejects.toThrow(/timed out/);
  });

  it('probes the dimension when not configured, and rejects vectors of the wrong size', async () => {
    await expect(provider().dimensions()).resolves.toBe(16);
    await expect(provider({ dimensions: 8 }).embed(['x'])).rejects.toThrow(/expected 8-dimensional/);
  });
});
