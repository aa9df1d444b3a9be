import { stripHangulSuffix, tokenize } from '@app/documents';
import { stemEnglish } from '../knowledge/text-match.util';

/** A labelled example: a question (or a description) and the tools it needs. */
export interface IntentExample {
  text: string;
  tools: string[];
  /** How much the example counts in training (descriptions count less than questions). */
  weight?: number;
  /** Signals computed from the tenant's knowledge, as named features. */
  signals?: Record<string, number>;
}

export type FeatureVector = Map<number, number>;

const DIMENSIONS = 1 << 16;
const ITEM_NAME = /(?<![a-z0-9_-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![a-z0-9_-])/g;

function hash(feature: string): number {
  let h = 2166136261;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % DIMENSIONS;
}

/**
 * Features of a question: character 2-4-grams of every word (so Korean particles and endings, English
 * inflections and typos still share most grams), stemmed words, and the knowledge signals. Item names
 * become one placeholder word: which item is named says nothing about which tool is needed.
 */
export function featurize(text: string, signals: Record<string, number> = {}): FeatureVector {
  const vector: FeatureVector = new Map();
  const add = (feature: string, value = 1) => {
    const index = hash(feature);
    vector.set(index, (vector.get(index) ?? 0) + value);
  };
  const normalized = text
    .normalize('NFC')
    .toLowerCase()
    .replace(ITEM_NAME, ' itemname ')
    .replace(/\d+/g, '0');
  for (const token of tokenize(normalized)) {
    const word = token.hangul ? stripHangulSuffix(token.text) : stemEnglish(token.text);
    add(`w:${word}`);
    const padded = `<${token.text}>`;
    for (let n = 2; n <= 4; n++)
      for (let i = 0; i + n <= padded.length; i++) add(`c:${padded.slice(i, i + n)}`, 0.5);
  }
  add('bias');
  let norm = 0;
  for (const value of vector.values()) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (const [index, value] of vector) vector.set(index, value / norm);
  for (const [name, value] of Object.entries(signals)) if (value) add(`s:${name}`, value);
  return vector;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));

/**
 * One logistic regression per tool over hashed character n-grams and knowledge signals, trained with
 * full-batch gradient descent and L2 regularisation. Deterministic: same examples, same weights.
 */
export class IntentClassifier {
  private readonly weights = new Map<string, Float64Array>();

  constructor(
    readonly tools: string[],
    private readonly options: { epochs?: number; rate?: number; l2?: number } = {},
  ) {}

  train(examples: IntentExample[]): this {
    const steps = this.trainSteps(examples);
    while (!steps.next().done);
    return this;
  }

  /**
   * Training as a sequence of small steps (one epoch of one tool each), so a caller can spread it over
   * the event loop. An example with `only` trains those tools' models alone (a "not for this tool" hint
   * says nothing about the other tools).
   */
  *trainSteps(examples: Array<IntentExample & { only?: string[] }>): Generator<void, this> {
    const data = examples.map((e) => {
      const x = featurize(e.text, e.signals);
      return {
        indices: Int32Array.from(x.keys()),
        values: Float64Array.from(x.values()),
        tools: new Set(e.tools),
        only: e.only ? new Set(e.only) : null,
        weight: e.weight ?? 1,
      };
    });
    yield;
    const epochs = this.options.epochs ?? 60;
    const rate = this.options.rate ?? 0.5;
    const l2 = this.options.l2 ?? 1e-4;
    const touched = Int32Array.from(new Set(data.flatMap((d) => [...d.indices])));
    for (const tool of this.tools) {
      const w = new Float64Array(DIMENSIONS);
      const own = data.filter((d) => !d.only || d.only.has(tool));
      for (let epoch = 0; epoch < epochs; epoch++) {
        for (const { indices, values, tools, weight } of own) {
          let z = 0;
          for (let i = 0; i < indices.length; i++) z += w[indices[i]] * values[i];
          const step = rate * (sigmoid(z) - (tools.has(tool) ? 1 : 0)) * weight;
          for (let i = 0; i < indices.length; i++) w[indices[i]] -= step * values[i];
        }
        const decay = 1 - rate * l2;
        for (let i = 0; i < touched.length; i++) w[touched[i]] *= decay;
        yield;
      }
      this.weights.set(tool, w);
    }
    return this;
  }

  /** Per tool, the probability that the question needs it. */
  predict(text: string, signals: Record<string, number> = {}): Record<string, number> {
    const x = featurize(text, signals);
    const result: Record<string, number> = {};
    for (const tool of this.tools) {
      const w = this.weights.get(tool);
      if (!w) continue;
      let z = 0;
      for (const [index, value] of x) z += w[index] * value;
      result[tool] = sigmoid(z);
    }
    return result;
  }
}
