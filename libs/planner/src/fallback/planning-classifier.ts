import { hintTexts, type KeywordMapping, type MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import type { CatalogIndex } from '../knowledge/catalog-index';
import { schemaProperties } from '../plan/schema-introspection.util';
import { IntentClassifier, type IntentExample } from './intent-classifier';
import { HINT_KEYWORD } from './hint-keyword';
import { measureColumn } from './question-analysis';

/** A classifier trained on one tenant's knowledge for one tool set, with what it learned from. */
export interface TrainedClassifier {
  classifier: IntentClassifier;
  /** Labelled questions per tool (a tool with few is scored by the rules instead). */
  counts: Map<string, number>;
}

export interface TrainingOptions {
  mappingWeight?: number;
  descriptionWeight?: number;
  l2?: number;
  epochs?: number;
}

/** What the classifier learns from: the tenant's knowledge as published, and the tools as served. */
export interface TrainingInput {
  tools: ToolDefinition[];
  catalog: CatalogIndex;
  /** The tenant's mappings with the tools' hint keywords merged in (see withHintKeywords). */
  mappings: MappingContent | null;
  /** Labelled questions given instead of the published ones (evaluation); null: the mapping's `examples`. */
  examples: ReadonlyArray<IntentExample> | null;
  /** The knowledge signals of a text (QuestionAnalysis.features). */
  signalsOf: (text: string) => Record<string, number>;
}

/** Work between two yields of the event loop while training in the background. */
const SLICE_MS = 8;

/** A tool's planning hints as keyword mappings (kind `tool`), so hints count as the tenant's mappings do. */
export function hintKeywordMappings(tools: ToolDefinition[]): KeywordMapping[] {
  return tools.flatMap((tool) =>
    hintTexts(tool.planning_hints?.keywords ?? undefined).map((keyword): KeywordMapping => ({
      keyword,
      value: tool.name,
      kind: 'tool',
      description: HINT_KEYWORD,
    })),
  );
}

/** The labelled examples the classifier learns from, and how many each tool has. */
export function trainingExamples(
  input: TrainingInput,
  options: TrainingOptions,
): { examples: Array<IntentExample & { only?: string[] }>; counts: Map<string, number> } {
  const available = new Set(input.tools.map((t) => t.name));
  const examples: Array<IntentExample & { only?: string[] }> = [];
  const counts = new Map<string, number>();
  const count = (tools: string[]) => {
    for (const t of tools) counts.set(t, (counts.get(t) ?? 0) + 1);
  };
  // The tenant's labelled questions whose tools it has (a question needing a tool it lacks says nothing).
  for (const example of input.examples ?? input.mappings?.examples ?? []) {
    if (!example.tools.every((t) => available.has(t))) continue;
    count(example.tools);
    examples.push({ text: example.text, tools: example.tools });
  }
  const measured = measureColumn(input.tools);
  for (const tool of input.tools) {
    const hints = tool.planning_hints;
    // Questions the tool's owner says it answers; and, for this tool alone, questions it does not.
    for (const text of hintTexts(hints?.examples ?? undefined)) {
      count([tool.name]);
      examples.push({ text, tools: [tool.name] });
    }
    for (const text of hintTexts(hints?.not_for ?? undefined))
      examples.push({ text, tools: [], only: [tool.name] });
    examples.push({ text: tool.description, tools: [tool.name], weight: options.descriptionWeight ?? 0.5 });
    // The values its own inputs enumerate are its vocabulary as its description is, in whatever language
    // they are spelt ("ultrasound", "checked in" for a tool described in Korean).
    const enumerated = enumeratedValues(tool);
    if (enumerated)
      examples.push({ text: enumerated, tools: [tool.name], weight: options.descriptionWeight ?? 0.5 });
    const columns = schemaProperties(tool.input_schema).map((p) =>
      (p.catalogColumn ?? p.name).split('.').pop()!,
    );
    for (const mapping of input.mappings?.mappings ?? []) {
      const field = mapping.kind === 'metric' ? (mapping.field ?? measured) : mapping.field;
      const points =
        mapping.kind === 'tool' ? mapping.value === tool.name : Boolean(field && columns.includes(field));
      // A value of a column many tools filter on (an item's type or status) points at none of them.
      if (points && !(mapping.kind === 'filter' && filteredByMany(input.tools, mapping.field)))
        examples.push({ text: mapping.keyword, tools: [tool.name], weight: options.mappingWeight ?? 0.1 });
    }
  }
  return { examples, counts };
}

/** The values a tool's own enum inputs take, as words (catalog-backed inputs are the catalog's). */
export function enumeratedValues(tool: ToolDefinition): string {
  return schemaProperties(tool.input_schema)
    .filter((p) => p.enumValues && !p.catalogColumn && !p.catalogTable)
    .flatMap((p) => p.enumValues!.map((v) => v.replace(/_/g, ' ')))
    .join(' ')
    .trim();
}

/** Whether a column is filtered on by the item filter of more than one tool (shared item vocabulary). */
function filteredByMany(tools: ToolDefinition[], field: string | undefined): boolean {
  if (!field) return false;
  let count = 0;
  for (const tool of tools)
    for (const property of schemaProperties(tool.input_schema))
      if (property.catalogTable && schemaProperties(property.schema).some((p) => p.name === field)) {
        count++;
        break;
      }
  return count > 1;
}

/**
 * Trains classifiers per tenant knowledge and tool set, off the request path: a plan asks for the
 * classifier of its knowledge; when it is not trained yet, training starts in the background (in slices
 * that yield the event loop, so no request waits for it) and the plan goes on from the other signals.
 */
export class ClassifierTrainer {
  private readonly trained = new Map<string, TrainedClassifier>();
  private readonly training = new Map<string, Promise<TrainedClassifier>>();
  /** Bumped by abortPending: a background training of an older generation stops at its next slice. */
  private generation = 0;

  constructor(private readonly maxEntries = 32) {}

  /** The trained classifier for a key, if training finished. */
  get(key: string): TrainedClassifier | undefined {
    const found = this.trained.get(key);
    if (found) {
      // Most recently used last.
      this.trained.delete(key);
      this.trained.set(key, found);
    }
    return found;
  }

  /** Whether training for a key is under way. */
  pending(key: string): boolean {
    return this.training.has(key);
  }

  /** Trains for a key unless trained or training already; resolves when the classifier is ready. */
  ensure(key: string, input: TrainingInput, options: TrainingOptions): Promise<TrainedClassifier> {
    const done = this.get(key);
    if (done) return Promise.resolve(done);
    let running = this.training.get(key);
    if (!running) {
      running = this.train(input, options)
        .then((entry) => {
          this.trained.set(key, entry);
          while (this.trained.size > this.maxEntries) this.trained.delete(this.trained.keys().next().value!);
          return entry;
        })
        .finally(() => this.training.delete(key));
      this.training.set(key, running);
    }
    return running;
  }

  /**
   * Stops the trainings under way at their next slice (their `ensure` rejects; a later plan starts
   * again): a closing application leaves no compute-bound work behind on the event loop.
   */
  abortPending(): void {
    this.generation++;
  }

  /** Trains at once, blocking (evaluation and tests that want the trained planner). */
  trainNow(key: string, input: TrainingInput, options: TrainingOptions): TrainedClassifier {
    const done = this.get(key);
    if (done) return done;
    const { examples, counts } = trainingExamples(input, options);
    const featured = examples.map((example) => ({ ...example, signals: input.signalsOf(example.text) }));
    const { steps, entry } = classifierSteps(input, options, featured, counts);
    while (!steps.next().done);
    this.trained.set(key, entry);
    return entry;
  }

  /** The same training as trainNow, spread over the event loop in slices of SLICE_MS. */
  private async train(input: TrainingInput, options: TrainingOptions): Promise<TrainedClassifier> {
    const generation = this.generation;
    const yieldToEventLoop = async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (generation !== this.generation) throw new Error('classifier training aborted');
    };
    await yieldToEventLoop();
    const { examples, counts } = trainingExamples(input, options);
    // Reading each example against the knowledge is most of the work: sliced too.
    const featured: typeof examples = [];
    let sliceStart = performance.now();
    for (const example of examples) {
      featured.push({ ...example, signals: input.signalsOf(example.text) });
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    const { steps, entry } = classifierSteps(input, options, featured, counts);
    sliceStart = performance.now();
    while (!steps.next().done) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    return entry;
  }
}

/** A classifier over the input's tools and the steps that train it on examples already read. */
function classifierSteps(
  input: TrainingInput,
  options: TrainingOptions,
  featured: Array<IntentExample & { only?: string[] }>,
  counts: Map<string, number>,
) {
  const classifier = new IntentClassifier(input.tools.map((t) => t.name).sort(), {
    l2: options.l2,
    epochs: options.epochs,
  });
  return { steps: classifier.trainSteps(featured), entry: { classifier, counts } };
}
