import { tokenize } from '../text/search-text.util';
import { EmbeddingProvider } from './embedding-provider';

const EN_STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her hers him his ' +
    'how i if in into is it its itself me more most my no nor not of on or our ours she so than that the their ' +
    'theirs them then there these they this those to too very was we were what when where which while who whom ' +
    'why will with would you your yours also may might must shall should about above after again against all any ' +
    'because before below between both during each few further here just once only other out over own same some ' +
    'such through under until up down off s t don now am'
  ).split(/\s+/),
);

const WEIGHTS = { word: 1.0, wordBigram: 1.0, charGram: 0.5, hangulBigram: 1.0 };
const CHAR_GRAM_MIN = 3;
const CHAR_GRAM_MAX = 5;

export const HASH_MODEL_PREFIX = 'hash-v1-';

/** The longest the embedder computes before it lets the event loop run other work (ms). */
const EMBED_SLICE_MS = 4;

function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Weights-free feature-hashing embedder (the offline default; see BENCHMARKS.md for why): word
 * unigrams and bigrams, character 3-5-grams of non-Hangul words, Hangul character bigrams,
 * sublinear tf, signed hashing into `dim` buckets, L2-normalised. Deterministic across processes.
 */
export function hashEmbed(text: string, dim: number): number[] {
  const features = new Map<string, { weight: number; tf: number }>();
  const add = (feature: string, weight: number): void => {
    const entry = features.get(feature);
    if (entry) entry.tf++;
    else features.set(feature, { weight, tf: 1 });
  };
  let previous: string | null = null;
  for (const { text: token, hangul } of tokenize(text)) {
    const stop = !hangul && EN_STOPWORDS.has(token);
    if (!stop) add(`w\u0001${token}`, WEIGHTS.word);
    if (previous !== null && !stop) add(`b\u0001${previous} ${token}`, WEIGHTS.wordBigram);
    previous = stop ? null : token;
    if (hangul) {
      if (token.length === 1) add(`k\u0001${token}`, WEIGHTS.hangulBigram);
      for (let i = 0; i + 2 <= token.length; i++)
        add(`k\u0001${token.slice(i, i + 2)}`, WEIGHTS.hangulBigram);
    } else if (!stop && token.length >= 2) {
      const padded = `<${token}>`;
      for (let n = CHAR_GRAM_MIN; n <= CHAR_GRAM_MAX; n++) {
        for (let i = 0; i + n <= padded.length; i++)
          add(`c\u0001${padded.slice(i, i + n)}`, WEIGHTS.charGram);
      }
    }
  }
  const vector = new Float64Array(dim);
  const powerOfTwo = (dim & (dim - 1)) === 0;
  for (const [feature, { weight, tf }] of features) {
    const hash = fmix32(fnv1a32(feature));
    const bucket = powerOfTwo ? hash & (dim - 1) : hash % dim;
    const sign = hash >>> 31 ? -1 : 1;
    vector[bucket] += sign * weight * (1 + Math.log(tf));
  }
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += vector[i] * vector[i];
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Array.from(vector, (value) => Math.fround(value * scale));
}

export class HashEmbeddingProvider extends EmbeddingProvider {
  readonly model: string;

  constructor(private readonly dim = 1024) {
    super();
    this.model = `${HASH_MODEL_PREFIX}${dim}`;
  }

  static fromModel(model: string): HashEmbeddingProvider | undefined {
    if (!model.startsWith(HASH_MODEL_PREFIX)) return undefined;
    const dim = Number(model.slice(HASH_MODEL_PREFIX.length));
    // Up to the embedding indexes' limit (halfvec HNSW: 4,000 dimensions).
    return Number.isInteger(dim) && dim >= 8 && dim <= 4000 ? new HashEmbeddingProvider(dim) : undefined;
  }

  dimensions(): Promise<number> {
    return Promise.resolve(this.dim);
  }

  /**
   * Runs on the event loop of the process that asked (the API's, for an embedded deployment's
   * ingestion): a batch gives the loop back every EMBED_SLICE_MS, so a request whose database answer
   * arrives meanwhile is not held behind the whole batch.
   */
  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    let sliceStarted = performance.now();
    for (const text of texts) {
      vectors.push(hashEmbed(text, this.dim));
      if (performance.now() - sliceStarted >= EMBED_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStarted = performance.now();
      }
    }
    return vectors;
  }
}
