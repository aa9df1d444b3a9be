import { hashEmbed, HashEmbeddingProvider } from './hash-embedding.provider';

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('HashEmbeddingProvider', () => {
  it('produces deterministic unit vectors of the configured size', async () => {
    const provider = new HashEmbeddingProvider(1024);
    expect(provider.model).toBe('hash-v1-1024');
    const [a, b] = await provider.embed(['Restart the payment gateway', 'Restart the payment gateway']);
    expect(a).toHaveLength(1024);
    expect(a).toEqual(b);
    expect(cosine(a, a)).toBeCloseTo(1, 5);
    expect(hashEmbed('', 64).every((value) => value === 0)).toBe(true);
  });

  it('places related texts closer than unrelated ones, in English and Korean', () => {
    const q = hashEmbed('how to restart the payment gateway', 1024);
    const related = hashEmbed('Restarting the payment gateway: drain traffic first', 1024);
    const unrelated = hashEmbed('Quarterly marketing budget for the design team', 1024);
    expect(cosine(q, related)).toBeGreaterThan(cosine(q, unrelated) + 0.2);
    const kq = hashEmbed('휴가 신청 방법', 1024);
    const krelated = hashEmbed('휴가를 신청하려면 포털에서 신청서를 작성합니다', 1024);
    const kunrelated = hashEmbed('데이터베이스 백업은 매일 새벽에 실행됩니다', 1024);
    expect(cosine(kq, krelated)).toBeGreaterThan(cosine(kq, kunrelated) + 0.1);
  });

  it('is recognised from its model id, and only for sane sizes', () => {
    expect(HashEmbeddingProvider.fromModel('hash-v1-384')?.model).toBe('hash-v1-384');
    // Up to the halfvec HNSW index's 4,000 dimensions.
    expect(HashEmbeddingProvider.fromModel('hash-v1-4000')?.model).toBe('hash-v1-4000');
    expect(HashEmbeddingProvider.fromModel('hash-v1-4001')).toBeUndefined();
    expect(HashEmbeddingProvider.fromModel('hash-v1-99999')).toBeUndefined();
    expect(HashEmbeddingProvider.fromModel('text-embedding-3-small')).toBeUndefined();
  });

  it('gives the event loop back during a large batch, with the same vectors as one at a time', async () => {
    const provider = new HashEmbeddingProvider(256);
    // Long enough texts that the batch cannot finish within one slice on any machine.
    const texts = Array.from({ length: 400 }, (_, i) =>
      `Section ${i}: restart the payment gateway after draining traffic from node ${i}. `.repeat(20),
    );
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const vectors = await provider.embed(texts);
    counting = false;
    // Other work ran while the batch was embedded (a blocking batch lets none in before it resolves).
    expect(turns).toBeGreaterThan(1);
    expect(vectors).toEqual(texts.map((text) => hashEmbed(text, 256)));
  });
});
