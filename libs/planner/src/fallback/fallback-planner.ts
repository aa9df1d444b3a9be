import type { MappingContent, ResolverRule } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { containsTerm, escapeRegExp, isKorean, normalizeText } from '../knowledge/text-match.util';
import { contentKnowledgeVersion } from '../knowledge/knowledge-version';
import type { Plan, PlanStep } from '../plan/plan.types';
import {
  allowedKeys,
  findIdPath,
  findProperty,
  linkableIdFields,
  PropertyInfo,
  schemaProperties,
} from '../plan/schema-introspection.util';
import type { IntentExample } from './intent-classifier';
import {
  ClassifierTrainer,
  hintKeywordMappings,
  type TrainedClassifier,
  type TrainingInput,
} from './planning-classifier';
import { documentEvidence, DocumentEvidence, isDocumentTool, knowledgeVocabulary } from './document-signal';
import { analyseQuestion, Fact, factFitsSource, type QuestionAnalysis } from './question-analysis';
import { chooseTools, hasOwnEvidence, isItemLookup } from './tool-choice';
import { QuerySignals } from './query-signals.util';
import {
  booleanFromText,
  enumContexts,
  type EnumContext,
  enumFromText,
  impliedEnums,
  numberFromText,
  patternFromText,
  shapeKey,
  sharedEnumValues,
} from './slot-values';
import { autoBucket, parseTimeRange } from './time-range.util';
import { dateSlots, isDateProperty, isMonthProperty, spokenDays } from './date-slots';
import {
  isNameProperty,
  isOrganisationProperty,
  nameFor,
  organisationIn,
  personNames,
  type NameMention,
} from './person-names';
import { codeSymbols, isSymbolProperty, symbolFor } from './code-symbols';

export interface FallbackPlannerInput {
  query: string;
  tools: ToolDefinition[];
  catalog: CatalogIndex;
  mappings: MappingContent | null;
  now: Date;
  maxLimit: number;
  /**
   * Passages of the tenant's document store that match the question (see DocumentMatcher): [] when the
   * store has nothing for it; undefined or null when it was not asked (then no document signal is used).
   */
  documents?: string[] | null;
  /**
   * The knowledge version (knowledgeVersion: the tenant's tools, hints, mappings, catalogs and resolvers by
   * published version) the trained classifier and cached planning state are keyed by; absent: the same key
   * over the content given (contentKnowledgeVersion).
   */
  knowledgeKey?: string;
  /** Also return what the plan was decided from (`trace`, for explainPlan); off on the normal path. */
  explain?: boolean;
  /** What the tenant's people call its items (its resolvers' rules): such a word is kept as a topic. */
  aliases?: ReadonlyArray<Pick<ResolverRule, 'match_type' | 'pattern'>>;
}

export interface FallbackPlanResult {
  plan: Plan;
  warnings: string[];
  /** Per tool: how strongly the question points at it (for explanations and evaluation). */
  scores: Record<string, number>;
  /** What the choice was made from, when the input asked for it (`explain`). */
  trace?: FallbackTrace;
}

/** A value of a tool's own input the question gives (an enum value or a pattern-shaped string). */
export interface SlotMatch {
  property: string;
  value: string;
  kind: 'enum' | 'pattern';
}

/**
 * The values the deterministic planner computed on its way to a plan, exposed as they are (nothing is
 * computed for it): what explainPlan reads to say why each tool was chosen or left out.
 */
export interface FallbackTrace {
  /** `ready`: the classifier trained on this knowledge scored the tools; `training`: the other signals alone. */
  classifier: 'ready' | 'training';
  /** The whole question read against the knowledge (matched mappings, facts, per-tool features). */
  analysis: QuestionAnalysis;
  clauses: string[];
  /** The classifier's probability per tool (a clause's, where higher and above the clause threshold). */
  probabilities: Record<string, number>;
  /** Per tool, its own evidence relative to the best-supported tool's (the score of tools with few examples). */
  evidenceScores: Record<string, number>;
  /** Per part of a multi-part question (in `clauses` order), each tool's score on that part's words alone. */
  clauseScores: Array<Record<string, number>>;
  /** Labelled questions (published examples and hint examples) per tool. */
  examples: Record<string, number>;
  /** A tool with at least this many labelled questions is scored by the classifier, else by its evidence. */
  minExamples: number;
  scores: Record<string, number>;
  slots: Record<string, SlotMatch[]>;
  thresholds: { tool: number; evidence: number; clause: number };
  /** The chosen tools, in step order. */
  chosen: string[];
  lookup: string | null;
  document: { tool: string | null; evidence: DocumentEvidence | null; led: boolean; clause: boolean };
}

/** A column or filter key holding an item's unique name ("name", "<x>_name", "hostname"); "names": several. */
const NAME_COLUMN = /^(?:[a-z]+_)?(?:[a-z]*name)$/;
const NAME_LIST_KEY = /^(?:[a-z]+_)?names$/;
/** Properties that take the ids of items another step found ("<x>_ids"). */
const ID_LIST_KEY = /^(?:[a-z]+_)?ids$/;
const MIN_TOOL_SCORE = 1;
/**
 * What a classifier probability counts for when nothing of the question is in the tool's own texts and
 * another tool's own evidence reached the evidence bar (picked on the tuning suite: 0.3 and 0.5 within 0.1
 * point; BENCHMARKS.md).
 */
const UNGROUNDED_SHARE = 0.5;
/** A tool the classifier has fewer labelled questions for than this is chosen by the rule score alone. */
const MIN_TOOL_EXAMPLES = 5;
/**
 * The score an input value only this tool takes gives it ("standard doubles" for the one tool with a room
 * type), per value: below the bar of a tool on wording alone, so it counts as evidence (see chooseTools)
 * rather than choosing a tool by itself.
 */
const SLOT_SCORE = 0.25;
const SLOT_SCORE_MAX = 0.25;
/**
 * The evidence score (QuestionAnalysis.strong: description words by idf, a keyword of the tool, a value of
 * a column it takes) at which a tool's own evidence counts fully: one word of a description ("day" in
 * "how's your day going" for a tool quoting rental days) is not enough on its own.
 */
const FULL_EVIDENCE = 5 * MIN_TOOL_SCORE;
/**
 * How sharply a tool's evidence is judged against the best-supported tool's: (strong / best) to this power,
 * so a tool with most of the best one's evidence keeps most of its score and one with half of it keeps an
 * eighth (a word shared with the best tool's question does not pull a second tool in beside it).
 */
const EVIDENCE_MARGIN_POWER = 3;
/** Each tool's evidence score: min(1, strong / FULL_EVIDENCE) x (strong / best)^EVIDENCE_MARGIN_POWER. */
function relativeEvidence(strong: Record<string, number>): Record<string, number> {
  const best = Math.max(0, ...Object.values(strong));
  const scores: Record<string, number> = {};
  for (const [tool, value] of Object.entries(strong))
    scores[tool] =
      best > 0 ? Math.min(1, value / FULL_EVIDENCE) * (value / best) ** EVIDENCE_MARGIN_POWER : 0;
  return scores;
}

/** The warning a plan carries while the classifier for its knowledge is still being trained. */
export const TRAINING_WARNING_PREFIX = 'planner_training';
/** Words that point back at items found by another part of the question ("their bookings", "걔네 이력"). */
const COREFERENCE =
  /\b(?:their|them|those|these|they|each)\b|걔네|그\s*(?:[\uac00-\ud7a3]+들|의존|대상)|각\s|거기|포함된|그중|들의|대상들/;

export { TOOL_OUTPUT_NOUN } from '@app/asset-registry';

const CLAUSE_BREAK =
  /[,;?+:&]|\s-\s|\.\s|\b(?:and|then|also|plus|as well as|along with|together with|followed by|after that|afterwards)\b|및|그리고|그다음|그 다음|다음에|이후에|또한|(?<=[주하보이되있없했았었뭐뽑찾잡알내우세리치꾸넣받])고\s|(?<=[있없되않으라지이]면)\s|(?<=[아어해와])서\s|(?<=[가-힣])(?:이랑|랑|하고|면서|거나)(?=\s|,)/;

/** The parts of a question: split at conjunctions, clause endings and punctuation ("A 보여주고 B도", "A, and B"). */
export function splitClauses(query: string): string[] {
  // A parenthetical is an aside to its clause ("specs (cores, memory)"), not a request of its own.
  const asides: string[] = [];
  const masked = query.replace(/\([^()]*\)/g, (aside) => `\ue000${asides.push(aside) - 1}\ue000`);
  return masked
    .split(new RegExp(CLAUSE_BREAK.source, 'g'))
    .map((part) => part.replace(/\ue000(\d+)\ue000/g, (_, i: string) => asides[Number(i)]).trim())
    .filter((part) => part.length >= 2);
}

/**
 * Plans without a language model. Which tools: a classifier over character n-grams of the question and
 * the knowledge signals (tool descriptions, keyword mappings, catalog values the question names), trained
 * on the tenant's published knowledge: its labelled questions (the mapping asset's `examples`), each tool's
 * planning hints (examples, keywords, not_for) and description, and the mapping keywords. Nothing about any
 * domain is compiled in. Parameters: from the tools' input schemas, the catalog's enum values and the
 * mappings. Deterministic for a given `now` once trained.
 */
const SHARED_TRAINER = new ClassifierTrainer();
/** Ids of example sets given to a planner (evaluation), so their classifiers are told apart. */
const EXAMPLE_SET_IDS = new WeakMap<ReadonlyArray<IntentExample>, number>();
const EXAMPLE_SET_IDS_NEXT = { value: 1 };

/** The mappings the planner reads: the tenant's, with every tool's hint keywords added (cached per key). */
const MERGED_MAPPINGS = new Map<string, MappingContent | null>();
function mergedMappings(
  key: string,
  tools: ToolDefinition[],
  mappings: MappingContent | null,
): MappingContent | null {
  let merged = MERGED_MAPPINGS.get(key);
  if (merged === undefined) {
    const hinted = hintKeywordMappings(tools);
    merged = hinted.length
      ? { ...(mappings ?? {}), mappings: [...(mappings?.mappings ?? []), ...hinted] }
      : mappings;
    if (MERGED_MAPPINGS.size > 64) MERGED_MAPPINGS.delete(MERGED_MAPPINGS.keys().next().value!);
    MERGED_MAPPINGS.set(key, merged);
  }
  return merged;
}

const VOCABULARIES = new Map<string, Set<string>>();
/** Regex rules are tenant-written: they only ever see words this long (bounds backtracking). */
const ALIAS_WORD_LIMIT = 64;

/** The words of a question that the tenant's alias rules (exact, prefix, contains, regex) match. */
export function aliasTerms(
  query: string,
  rules: ReadonlyArray<Pick<ResolverRule, 'match_type' | 'pattern'>>,
): string[] {
  if (!rules.length) return [];
  const text = query.normalize('NFC').toLowerCase();
  const words = text.split(/[\s,.;:!?()[\]{}"'“”‘’]+/).filter(Boolean);
  const found: string[] = [];
  for (const rule of rules) {
    const pattern = rule.pattern.normalize('NFC').toLowerCase().trim();
    if (!pattern) continue;
    if (rule.match_type === 'regex') {
      let regex: RegExp;
      try {
        regex = new RegExp(rule.pattern, 'iu');
      } catch {
        continue;
      }
      const word = words.find((w) => w.length <= ALIAS_WORD_LIMIT && regex.test(w));
      if (word) found.push(word);
    } else if (rule.match_type === 'prefix') {
      const word = words.find((w) => w.startsWith(pattern));
      if (word) found.push(stripParticle(word, pattern));
    } else if (containsTerm(text, pattern)) found.push(pattern);
  }
  return [...new Set(found)];
}

/** A prefix-matched word without the Korean particle after it ("본점이" -> "본점"). */
function stripParticle(word: string, pattern: string): string {
  return /[\uac00-\ud7a3]$/.test(pattern)
    ? word.replace(/(?:은|는|이|가|을|를|의|에|도|랑|와|과)$/, '')
    : word;
}
const SHARED_ENUMS = new Map<string, Set<string>>();
const ENUM_CONTEXTS = new WeakMap<ToolDefinition[], Map<string, EnumContext>>();
/** The words of a tool set's descriptions and schemas (not people's names), and the people each question names. */
const TOOL_WORDS = new WeakMap<ToolDefinition[], { words: Set<string>; roles: Set<string> }>();
const PEOPLE = new WeakMap<FallbackPlannerInput, NameMention[]>();

/**
 * How many of a tool's own inputs the question gives a value for: an enum value (or its label) of an enum
 * no other tool takes, or a string shaped like the property's pattern or example. Catalog-backed inputs
 * are the catalog's evidence (see QuestionAnalysis), not counted here.
 */
export function slotMatches(query: string, tool: ToolDefinition, shared: Set<string>): SlotMatch[] {
  const matches: SlotMatch[] = [];
  for (const property of schemaProperties(tool.input_schema)) {
    if (property.catalogColumn || property.catalogTable) continue;
    if (property.enumValues) {
      const value = property.enumValues.length >= 2 ? enumFromText(query, property) : null;
      if (value && !shared.has(value)) matches.push({ property: property.name, value, kind: 'enum' });
    } else if (property.type === 'string' && !shared.has(shapeKey(property))) {
      const value = patternFromText(query, property);
      if (value) matches.push({ property: property.name, value, kind: 'pattern' });
    }
  }
  return matches;
}

export class FallbackPlanner {
  private readonly trainer: ClassifierTrainer;
  private readonly exampleSet: string;

  constructor(
    /** Labelled questions to learn from instead of the tenant's published ones (evaluation); null: published. */
    private readonly examples: ReadonlyArray<IntentExample> | null = null,
    private readonly options: {
      threshold?: number;
      clauseThreshold?: number;
      mappingWeight?: number;
      descriptionWeight?: number;
      evidenceThreshold?: number;
      l2?: number;
      epochs?: number;
      procedureRule?: boolean;
      /** Off: ignore the document signal even when passages are given (evaluation of the signal). */
      documentSignal?: boolean;
      /** Train on the request instead of in the background (evaluation, tests of the trained planner). */
      trainSynchronously?: boolean;
    } = {},
    trainer: ClassifierTrainer = SHARED_TRAINER,
  ) {
    this.trainer = trainer;
    if (examples && !EXAMPLE_SET_IDS.has(examples))
      EXAMPLE_SET_IDS.set(examples, EXAMPLE_SET_IDS_NEXT.value++);
    this.exampleSet = examples ? `set${EXAMPLE_SET_IDS.get(examples)}` : 'published';
  }

  /** The key of the classifier for this input: knowledge version (tools included), example set, training options. */
  private keyOf(input: FallbackPlannerInput): string {
    const knowledge =
      input.knowledgeKey ?? contentKnowledgeVersion(input.tools, input.mappings, input.catalog.content);
    const { mappingWeight, descriptionWeight, l2, epochs } = this.options;
    const training = { mappingWeight, descriptionWeight, l2, epochs };
    return `${knowledge}|${this.exampleSet}|${JSON.stringify(training)}`;
  }

  private trainingInput(input: FallbackPlannerInput, mappings: MappingContent | null): TrainingInput {
    return {
      tools: input.tools,
      catalog: input.catalog,
      mappings,
      examples: this.examples,
      signalsOf: (text) => analyseQuestion(text, input.tools, input.catalog, mappings, input.now).features,
    };
  }

  /** Stops the background trainings under way (the application is closing). */
  abortTraining(): void {
    this.trainer.abortPending();
  }

  /** Trains the classifier for this knowledge and tool set now, off the request path (resolves when ready). */
  async prepare(input: FallbackPlannerInput): Promise<void> {
    const key = this.keyOf(input);
    const mappings = mergedMappings(key, input.tools, input.mappings);
    await this.trainer.ensure(key, this.trainingInput({ ...input }, mappings), this.options);
  }

  /** Whether the classifier for this input is trained (else a plan uses the rules alone and says so). */
  ready(input: FallbackPlannerInput): boolean {
    return Boolean(this.trainer.get(this.keyOf(input)));
  }

  plan(request: FallbackPlannerInput): FallbackPlanResult {
    const key = this.keyOf(request);
    const input = { ...request, mappings: mergedMappings(key, request.tools, request.mappings) };
    const analysis = analyseQuestion(input.query, input.tools, input.catalog, input.mappings, input.now);
    // A word the tenant's resolvers know ("본점") names its items: kept as a topic for the item lookup,
    // which resolves it, instead of being dropped as a word the catalog does not know.
    const aliasWords = aliasTerms(input.query, input.aliases ?? []);
    if (aliasWords.length) {
      analysis.itemTopics = [...new Set([...analysis.itemTopics, ...aliasWords])];
      analysis.features.topic = 1;
      analysis.inDomain = true;
    }
    const { text, signals, facts, identifiers, matchedMappings } = analysis;
    const warnings: string[] = [];
    const aggregation =
      signals.aggregation ??
      (matchedMappings.find((m) => m.kind === 'aggregation')?.value as QuerySignals['aggregation']) ??
      null;

    const passages =
      this.options.documentSignal !== false && Array.isArray(input.documents) ? input.documents : null;
    const trained = this.classifierFor(key, input, warnings);
    const counts = trained?.counts ?? new Map<string, number>();
    const vocabulary = this.vocabularyFor(key, input);
    const docEvidence: DocumentEvidence | null = passages
      ? documentEvidence(input.query, passages, vocabulary)
      : null;
    const probabilities = trained?.classifier.predict(input.query, analysis.features) ?? {};
    const documentTool = input.tools.find(isDocumentTool);
    /** Words the structured knowledge does not explain but a passage of the tenant's documents contains. */
    const documentLed = (evidence: DocumentEvidence | null) =>
      evidence !== null &&
      documentTool !== undefined &&
      evidence.unexplained >= 2 &&
      evidence.unexplained > evidence.explained;
    let documentClause = false;
    // Each part of a multi-part question is classified on its own too, so one half is not drowned by the other.
    const clauseThreshold = this.options.clauseThreshold ?? 0.7;
    const clauses = splitClauses(input.query);
    // Tools with too few labelled questions are scored by their own evidence (description, hints, mappings,
    // catalog columns), relative to the best-supported tool of the question or of one of its parts: a word
    // shared with some tool's description does not pull that tool into a question another tool fits better.
    // A tool scored by its evidence alone gives way, in a text the trained classifier is confident another
    // tool answers, unless a keyword of its own (a mapping or a hint) is in that text: a word shared with its
    // description does not add it beside the tool the tenant's labelled questions point at.
    const learnedTools = new Set(
      input.tools.filter((t) => (counts.get(t.name) ?? 0) >= MIN_TOOL_EXAMPLES).map((t) => t.name),
    );
    const confidentIn = (predicted: Record<string, number>) =>
      Object.entries(predicted).some(
        ([tool, p]) => learnedTools.has(tool) && p >= (this.options.threshold ?? 0.5),
      );
    // A part of a question whose whole the classifier reads confidently is read with the whole.
    const wholeConfident = confidentIn(probabilities);
    const evidenceScores = (text: QuestionAnalysis, predicted: Record<string, number>) => {
      const relative = relativeEvidence(text.strong);
      const confident = wholeConfident || confidentIn(predicted);
      if (confident)
        for (const tool of Object.keys(relative))
          if (!text.features[`mapped:${tool}`] && !text.features[`hinted:${tool}`]) relative[tool] /= 2;
      return relative;
    };
    const ruleScores = evidenceScores(analysis, probabilities);
    const learned = (tool: string) => (counts.get(tool) ?? 0) >= MIN_TOOL_EXAMPLES;
    const shared = this.sharedEnums(key, input.tools);
    // Per part of a multi-part question, each tool's score on that part's words alone (see chooseTools).
    const clauseScores: Array<Record<string, number>> = [];
    if (clauses.length > 1)
      for (const clause of clauses) {
        const clauseAnalysis = analyseQuestion(clause, input.tools, input.catalog, input.mappings, input.now);
        const features = clauseAnalysis.features;
        const predicted = trained?.classifier.predict(clause, features) ?? {};
        const clauseEvidence = evidenceScores(clauseAnalysis, predicted);
        for (const [tool, score] of Object.entries(clauseEvidence))
          ruleScores[tool] = Math.max(ruleScores[tool] ?? 0, score);
        clauseScores.push(
          Object.fromEntries(
            input.tools.map((tool) => {
              const base = learned(tool.name)
                ? (predicted[tool.name] ?? 0)
                : (clauseEvidence[tool.name] ?? 0);
              const slots = slotMatches(clause, tool, shared).length;
              return [tool.name, Math.max(base, slots ? Math.min(SLOT_SCORE_MAX, SLOT_SCORE * slots) : 0)];
            }),
          ),
        );
        if (passages && documentLed(documentEvidence(clause, passages, vocabulary))) documentClause = true;
        for (const [tool, p] of Object.entries(predicted))
          if (p >= clauseThreshold) probabilities[tool] = Math.max(probabilities[tool] ?? 0, p);
      }
    const scores: Record<string, number> = {};
    const slotsFound: Record<string, SlotMatch[]> | null = request.explain ? {} : null;
    for (const tool of input.tools) {
      const base =
        (counts.get(tool.name) ?? 0) >= MIN_TOOL_EXAMPLES
          ? (probabilities[tool.name] ?? 0)
          : (ruleScores[tool.name] ?? 0);
      // Values only this tool's inputs take ("standard doubles", "HS2611034") point at it.
      const matched = slotMatches(input.query, tool, this.sharedEnums(key, input.tools));
      const slots = matched.length;
      if (slots) analysis.features[`slot:${tool.name}`] = slots;
      if (slots && slotsFound) slotsFound[tool.name] = matched;
      const slotScore = slots ? Math.min(SLOT_SCORE_MAX, SLOT_SCORE * slots) : 0;
      scores[tool.name] = Math.round(Math.max(base, slotScore) * 100) / 100;
    }
    // A tool the classifier scores, with nothing of the question in its own texts, inputs or keywords, beside a
    // tool scored by its own evidence that reached the evidence bar: its probability comes from wording it
    // learned from other questions than this tenant's, so it counts for half (an added tenant's tools are not
    // outvoted by a built-in whose examples merely read alike).
    const lookupTool = input.tools.find(isItemLookup);
    const ownText = (tool: ToolDefinition) =>
      (analysis.features[`desc:${tool.name}`] ?? 0) > 0 || hasOwnEvidence(tool, analysis, lookupTool);
    const evidenceThreshold = this.options.evidenceThreshold ?? 0.3;
    if (
      input.tools.some(
        (tool) => !learned(tool.name) && scores[tool.name] >= evidenceThreshold && ownText(tool),
      )
    )
      for (const tool of input.tools)
        if (learned(tool.name) && !ownText(tool))
          scores[tool.name] = Math.round(scores[tool.name] * UNGROUNDED_SHARE * 100) / 100;
    const lookup = lookupTool;
    const chosen = chooseTools({
      tools: input.tools,
      analysis,
      scores,
      clauses,
      aggregation,
      lookup,
      documentTool,
      documentLed: documentLed(docEvidence),
      documentClause,
      options: this.options,
      learned: [...counts.values()].some((n) => n >= MIN_TOOL_EXAMPLES),
      clauseScores,
    });
    const intentTool = [...chosen].sort((a, b) => scores[b.name] - scores[a.name])[0];
    const stage = (tool: ToolDefinition) =>
      findProperty(tool.input_schema, ['filters'])
        ? 0
        : findProperty(tool.input_schema, ['scope'])
          ? 1
          : findProperty(tool.input_schema, ['kinds'])
            ? 2
            : 3;
    // Tools that show things run before tools that change things ("check X, then order Y", "find her, then
    // book her": a lookup first).
    const changes = (tool: ToolDefinition) => Number(tool.has_side_effects !== false);
    chosen.sort((a, b) => stage(a) - stage(b) || changes(a) - changes(b) || scores[b.name] - scores[a.name]);
    // A graph question about items another step finds ("the stopped ones and what they depend on") runs
    // after that step and starts from its items.
    const idFields = linkableIdFields(input.tools);
    const feedsItems = (t: ToolDefinition) =>
      !findProperty(t.input_schema, ['scope']) &&
      Boolean(findIdPath(t.output_schema, idFields)) &&
      schemaProperties(t.input_schema).some((p) => p.catalogTable);
    const feeders = chosen.filter(feedsItems);
    if (!identifiers.length && feeders.length)
      chosen.sort(
        (a, b) =>
          Number(Boolean(findProperty(a.input_schema, ['scope']))) -
            Number(Boolean(findProperty(b.input_schema, ['scope']))) || stage(a) - stage(b),
      );

    const steps: PlanStep[] = [];
    const sources: Array<{ id: string; path: string; tool: string }> = [];
    const multiple = chosen.length > 1;
    const ownClauses = multiple
      ? this.clausesOf(chosen, clauses, input, trained, counts)
      : new Map<string, string>();
    for (const tool of chosen) {
      const built = this.stepsFor(tool, {
        text,
        signals,
        facts,
        identifiers,
        tags: analysis.tags,
        regions: analysis.regions,
        itemTopics: analysis.itemTopics,
        textTopics: analysis.textTopics,
        aggregation,
        input,
        warnings,
        multiple,
        feeder: sources.find((source) => feeders.some((t) => t.name === source.tool)) ?? null,
        clause: ownClauses.get(tool.name) ?? null,
      });
      for (const { parameters, needs } of built) {
        const id = `s${steps.length + 1}`;
        steps.push({ id, tool_type: tool.name, parameters, ...(needs.length ? { needs_input: needs } : {}) });
        const idPath = findIdPath(tool.output_schema, idFields);
        if (idPath) sources.push({ id, path: idPath, tool: tool.name });
      }
    }
    if (multiple && (COREFERENCE.test(text) || !identifiers.length))
      this.linkSteps(steps, sources, input.tools);
    for (const step of steps) step.purpose = this.purpose(step);

    const primary = steps.length
      ? (steps.find((s) => s.tool_type === intentTool?.name) ?? steps[0]).tool_type
      : undefined;
    return {
      plan: {
        intent: primary
          ? (input.tools.find((t) => t.name === primary)?.planning_hints?.intent ?? `use_${primary}`)
          : 'general',
        steps,
        language: isKorean(input.query) ? 'ko' : 'en',
      },
      warnings,
      scores,
      ...(request.explain
        ? {
            trace: {
              classifier: trained ? 'ready' : 'training',
              analysis,
              clauses,
              probabilities,
              evidenceScores: ruleScores,
              clauseScores,
              examples: Object.fromEntries(counts),
              minExamples: MIN_TOOL_EXAMPLES,
              scores,
              slots: slotsFound ?? {},
              thresholds: {
                tool: this.options.threshold ?? 0.5,
                evidence: this.options.evidenceThreshold ?? 0.3,
                clause: clauseThreshold,
              },
              chosen: chosen.map((tool) => tool.name),
              lookup: lookup?.name ?? null,
              document: {
                tool: documentTool?.name ?? null,
                evidence: docEvidence,
                led: documentLed(docEvidence),
                clause: documentClause,
              },
            } satisfies FallbackTrace,
          }
        : {}),
    };
  }

  /**
   * The classifier for this tool set and knowledge: trained once, in the background (a plan asked before
   * it is ready goes on from the other signals and says so), or at once when training synchronously.
   */
  private classifierFor(
    key: string,
    input: FallbackPlannerInput,
    warnings: string[],
  ): TrainedClassifier | undefined {
    const found = this.trainer.get(key);
    if (found) return found;
    const training = this.trainingInput(input, input.mappings);
    if (this.options.trainSynchronously) return this.trainer.trainNow(key, training, this.options);
    void this.trainer.ensure(key, training, this.options).catch(() => undefined);
    warnings.push(
      `${TRAINING_WARNING_PREFIX}: the planner is still learning this tenant's published knowledge (examples, hints); this plan was chosen from the tools' descriptions, keywords and catalog alone`,
    );
    return undefined;
  }

  /** Enum values more than one tool takes (a property of the whole business): they point at none. */
  private sharedEnums(key: string, tools: ToolDefinition[]): Set<string> {
    let shared = SHARED_ENUMS.get(key);
    if (!shared) {
      shared = sharedEnumValues(tools.map((tool) => schemaProperties(tool.input_schema)));
      if (SHARED_ENUMS.size > 64) SHARED_ENUMS.delete(SHARED_ENUMS.keys().next().value!);
      SHARED_ENUMS.set(key, shared);
    }
    return shared;
  }

  private vocabularyFor(key: string, input: FallbackPlannerInput): Set<string> {
    let vocabulary = VOCABULARIES.get(key);
    if (!vocabulary) {
      vocabulary = knowledgeVocabulary(input.tools, input.catalog, input.mappings);
      if (VOCABULARIES.size > 64) VOCABULARIES.delete(VOCABULARIES.keys().next().value!);
      VOCABULARIES.set(key, vocabulary);
    }
    return vocabulary;
  }

  private stepsFor(
    tool: ToolDefinition,
    ctx: {
      text: string;
      signals: QuerySignals;
      facts: Fact[];
      identifiers: string[];
      tags: string[];
      regions: string[];
      itemTopics: string[];
      textTopics: string[];
      aggregation: string | null;
      input: FallbackPlannerInput;
      warnings: string[];
      multiple: boolean;
      feeder: { id: string; path: string } | null;
      /** The part of a several-part question this tool answers, if one: its days and time range are read there first. */
      clause: string | null;
    },
  ): Array<{ parameters: Record<string, unknown>; needs: string[] }> {
    const { signals, identifiers, warnings } = ctx;
    // The tool is planned over the catalog of the source it reads, with the values that catalog lists.
    const source = ctx.input.catalog.sourceOf(tool.name);
    const facts = ctx.facts.filter((f) => factFitsSource(f, source));
    const input = { ...ctx.input, catalog: ctx.input.catalog.forTool(tool.name) };
    const params: Record<string, unknown> = {};
    const properties = schemaProperties(tool.input_schema);
    let ordered = false;
    let namesFiltered = false;
    // Days and time ranges are read in the tool's own part of the question first ("metrics for the last hour
    // and yesterday's changes": the last hour is the metrics').
    const ownDays = ctx.clause ? dateSlots(properties, ctx.clause, ctx.input.now) : {};
    const days = Object.keys(ownDays).length
      ? ownDays
      : dateSlots(properties, ctx.input.query, ctx.input.now);
    const timeRange = (ctx.clause && parseTimeRange(ctx.clause, ctx.input.now)) || signals.timeRange;
    // A duration value ("5m", "1h") is not read in the words of the time range ("최근 1시간" is no 1h sample).
    const spans = [
      ctx.clause && parseTimeRange(ctx.clause, ctx.input.now),
      parseTimeRange(ctx.input.query, ctx.input.now),
    ]
      .map((range) => (range ? range.span : ''))
      .filter(Boolean);
    const durationFree = (property: PropertyInfo) =>
      property.enumValues?.some((v) => /^\d+\s*(?:s|m|min|h|d|w)$/i.test(v))
        ? spans.reduce((text, span) => text.split(normalizeText(span)).join(' '), ctx.text)
        : ctx.text;
    const contexts = this.enumContextsFor(ctx.input.tools);
    const enumContext = (property: PropertyInfo): EnumContext => ({
      descriptions: [],
      prose: [],
      ...contexts.get(`${tool.name}/${property.name}`),
      broad: true,
    });
    /** Enum inputs given their first value for want of one named (a required input without a default). */
    const guessed = new Set<string>();

    for (const property of properties) {
      const { name } = property;
      if (property.catalogColumn) {
        const values = [...new Set(this.columnFacts(facts, property.catalogColumn).map((f) => f.value))];
        const chosen =
          property.type === 'string' ? this.oneValue(values, facts, property.catalogColumn) : values;
        if (!chosen.length && property.required && property.enumValues) {
          const named = this.enumFact(ctx.text, facts, property);
          if (named) chosen.push(named);
        }
        if (chosen.length)
          params[name] =
            property.type === 'array' ? this.expandOrdered(chosen, ctx.text, property) : chosen[0];
      } else if (property.catalogTable) {
        const allowed = allowedKeys(property.schema);
        const filters = this.filtersFor(property.catalogTable, facts, input.catalog, allowed, ctx.text);
        const nameKey = allowed
          ? [...allowed].find((key) => NAME_LIST_KEY.test(key))
          : input.catalog.table(property.catalogTable)?.columns.find((c) => NAME_COLUMN.test(c.name))?.name;
        if (nameKey && identifiers.length && !findProperty(tool.input_schema, ['scope', 'item', 'query'])) {
          filters[nameKey] = identifiers.length === 1 ? identifiers[0] : identifiers;
          namesFiltered = true;
        }
        if (ctx.tags.length && (!allowed || allowed.has('tags'))) filters.tags = ctx.tags;
        if (ctx.regions.length && (!allowed || allowed.has('attributes')))
          filters.attributes = { region: ctx.regions[0] };
        if (Object.keys(filters).length) params[name] = filters;
      } else if (property.enumValues) {
        // Inputs the question's signals fill (aggregation, order, bucket, search type, grouping); else, like
        // any enum, the value the question names.
        const signalled = this.signalledEnum(name, property.enumValues, signals, ctx.aggregation);
        // A period named in any language ("지난달" is "last month"): the value spelt like the time range read.
        const period = timeRange?.label.toLowerCase().replace(/\s+/g, '_');
        const spoken = period ? property.enumValues.find((v) => v.toLowerCase() === period) : undefined;
        const value =
          signalled ??
          spoken ??
          (property.type === 'integer' || property.type === 'number'
            ? this.numberEnum(ctx.text, property)
            : this.enumChoice(durationFree(property), facts, property, enumContext(property)));
        if (value !== null) params[name] = value;
        else if (property.required && !property.hasDefault) {
          params[name] = property.enumValues[0];
          guessed.add(name);
        }
      } else if (['time_range', 'timerange', 'period'].includes(name) && property.type === 'object') {
        if (timeRange) params[name] = { start: timeRange.start, end: timeRange.end };
        else if (property.required) {
          const hours = 24;
          params[name] = {
            start: new Date(input.now.getTime() - hours * 3_600_000).toISOString(),
            end: input.now.toISOString(),
          };
          warnings.push(`${tool.name}: no time range in the question, assumed the last ${hours} hours.`);
        }
      } else if (['limit', 'top_n', 'top_k', 'size'].includes(name)) {
        const wanted = signals.limit ?? (name === 'top_n' && signals.superlative ? 1 : null);
        const orderedByValue = name === 'top_n' && (signals.order !== null || signals.superlative);
        if (wanted !== null && !(name === 'limit' && ctx.multiple && signals.rankedLimit))
          params[name] = Math.min(wanted, property.maximum ?? input.maxLimit, input.maxLimit);
        else if (orderedByValue && signals.limit === null)
          params[name] = Math.min(10, property.maximum ?? 10);
        if (name === 'top_n' && params[name] !== undefined) ordered = true;
      } else if (name === 'offset') {
        if (signals.offset !== null) params[name] = signals.offset;
      } else if (name === 'depth') {
        if (signals.depth !== null) params[name] = Math.min(signals.depth, property.maximum ?? signals.depth);
      } else if (name === 'keywords' && property.type === 'array') {
        const eventText = Boolean(findProperty(tool.input_schema, ['kinds']));
        if (signals.quoted.length) params[name] = signals.quoted;
        else if (eventText && ctx.textTopics.length) params[name] = ctx.textTopics;
        else if (!eventText && ctx.itemTopics.length) params[name] = ctx.itemTopics;
        else if (identifiers.length && !namesFiltered && !eventText) params[name] = identifiers;
      } else if (isSymbolProperty(property) && symbolFor(property, properties, codeSymbols(input.query))) {
        params[name] = symbolFor(property, properties, codeSymbols(input.query));
      } else if (['scope', 'item', 'target', 'ci'].includes(name)) {
        if (identifiers.length)
          params[name] = identifiers.length > 1 && property.schema.anyOf ? identifiers : identifiers[0];
        else if (ctx.feeder) params[name] = { $ref: ctx.feeder.id, path: ctx.feeder.path };
      } else if (['query', 'question', 'text'].includes(name) && property.type === 'string') {
        params[name] = input.query.trim();
      } else if (property.type === 'integer' || property.type === 'number') {
        const value = numberFromText(ctx.text, property, properties) ?? days[name] ?? null;
        if (value !== null) params[name] = value;
      } else if (property.type === 'boolean') {
        const flag = booleanFromText(ctx.input.query, property);
        if (flag !== null) params[name] = flag;
      } else if (isDateProperty(property) || isMonthProperty(property)) {
        if (days[name]) params[name] = days[name];
      } else if (isOrganisationProperty(property)) {
        const organisation = organisationIn(ctx.input.query, this.peopleIn(ctx.input));
        if (organisation) params[name] = organisation;
      } else if (isNameProperty(property)) {
        const person = nameFor(property, properties.filter(isNameProperty), this.peopleIn(ctx.input));
        if (person) params[name] = person;
      } else if (property.type === 'string') {
        const value = patternFromText(ctx.input.query, property, properties);
        if (value !== null) params[name] = value;
      }
    }
    if (ordered && !params.order && properties.some((p) => p.name === 'order')) params.order = 'desc';
    Object.assign(params, impliedEnums(properties, params, guessed));
    if (namesFiltered) delete params.keywords;

    // A required input the question does not give is asked for (the step waits for it), not guessed.
    const missing = properties.filter((p) => p.required && params[p.name] === undefined && !p.hasDefault);
    if (missing.length)
      warnings.push(
        `${tool.name}: the question does not give ${missing.map((p) => p.name).join(', ')}; asked for.`,
      );
    return [{ parameters: params, needs: missing.map((p) => p.name) }];
  }

  /**
   * Per chosen tool of a several-part question, the part it answers: the part whose own reading (the
   * classifier for a tool with labelled questions, else its evidence, and values of its own inputs) points
   * at it most, when that part points at no other chosen tool as much.
   */
  private clausesOf(
    chosen: ToolDefinition[],
    clauses: string[],
    input: FallbackPlannerInput,
    trained: TrainedClassifier | undefined,
    counts: Map<string, number>,
  ): Map<string, string> {
    const owners = new Map<string, string>();
    // Only tools that read days or a time range read their own part.
    const timed = (tool: ToolDefinition) =>
      schemaProperties(tool.input_schema).some(
        (p) =>
          isDateProperty(p) ||
          isMonthProperty(p) ||
          (p.type === 'object' && /time|period|range/.test(p.name)),
      );
    if (clauses.length < 2 || !chosen.some(timed)) return owners;
    // With one part naming a time, every tool reads that one anyway.
    const dated = clauses.filter(
      (clause) => parseTimeRange(clause, input.now) || spokenDays(clause, input.now).length,
    );
    if (dated.length < 2) return owners;
    const shared = sharedEnumValues(chosen.map((tool) => schemaProperties(tool.input_schema)));
    const scores = clauses.map((clause) => {
      const analysis = analyseQuestion(clause, input.tools, input.catalog, input.mappings, input.now);
      const predicted = trained?.classifier.predict(clause, analysis.features) ?? {};
      const evidence = relativeEvidence(analysis.strong);
      return Object.fromEntries(
        chosen.map((tool) => [
          tool.name,
          ((counts.get(tool.name) ?? 0) >= MIN_TOOL_EXAMPLES
            ? (predicted[tool.name] ?? 0)
            : (evidence[tool.name] ?? 0)) +
            SLOT_SCORE * slotMatches(clause, tool, shared).length,
        ]),
      );
    });
    for (const tool of chosen) {
      const best = Math.max(...scores.map((s) => s[tool.name]));
      if (best <= 0) continue;
      const at = scores.findIndex((s) => s[tool.name] === best);
      const mine = scores[at];
      if (chosen.some((other) => other !== tool && mine[other.name] >= best)) continue;
      owners.set(tool.name, clauses[at]);
    }
    return owners;
  }

  /** The value of an input its name says the question's signals give (aggregation, order, bucket...), if any. */
  private signalledEnum(
    name: string,
    values: string[],
    signals: QuerySignals,
    aggregation: string | null,
  ): string | null {
    if (['aggregation', 'agg'].includes(name))
      return aggregation && values.includes(aggregation) ? aggregation : null;
    if (name === 'order') return signals.order;
    if (['bucket', 'interval'].includes(name)) {
      const bucket =
        signals.bucket ?? (signals.trend && signals.timeRange ? autoBucket(signals.timeRange) : null);
      return bucket && values.includes(bucket) ? bucket : null;
    }
    if (name === 'search_type') return signals.exactText && values.includes('text') ? 'text' : null;
    if (name === 'group_by') return signals.overall && values.includes('none') ? 'none' : null;
    return null;
  }

  /** The people the question names (read once per question), beside the words the tenant's tools use. */
  private peopleIn(input: FallbackPlannerInput): NameMention[] {
    const cached = PEOPLE.get(input);
    if (cached) return cached;
    let vocabulary = TOOL_WORDS.get(input.tools);
    if (!vocabulary) {
      const words = new Set<string>();
      const roles = new Set<string>();
      for (const tool of input.tools) {
        const text = normalizeText(`${tool.description} ${JSON.stringify(tool.input_schema)}`);
        for (const word of text.match(/[a-z]+/g) ?? []) words.add(word);
        for (const property of schemaProperties(tool.input_schema).filter(isNameProperty))
          for (const word of (typeof property.schema.description === 'string'
            ? property.schema.description
            : ''
          ).match(/[\uac00-\ud7a3]{2,}/g) ?? [])
            roles.add(word);
      }
      vocabulary = { words, roles };
      TOOL_WORDS.set(input.tools, vocabulary);
    }
    const { words, roles } = vocabulary;
    const people = personNames(input.query, (word) => words.has(word), roles);
    PEOPLE.set(input, people);
    return people;
  }

  /** A numeric enum ("duration_min": 15, 30, 60): the number the question gives with its unit, if allowed. */
  private numberEnum(text: string, property: PropertyInfo): number | null {
    const value = numberFromText(text, property);
    return value !== null && (property.enumValues ?? []).includes(String(value)) ? value : null;
  }

  /** Per tool and enum input, what the tenant's other inputs and tools say of its values (computed once per tool set). */
  private enumContextsFor(tools: ToolDefinition[]): Map<string, EnumContext> {
    let contexts = ENUM_CONTEXTS.get(tools);
    if (!contexts) {
      contexts = enumContexts(
        tools.map((t) => ({
          name: t.name,
          description: t.description,
          properties: schemaProperties(t.input_schema),
        })),
      );
      ENUM_CONTEXTS.set(tools, contexts);
    }
    return contexts;
  }

  /** The one value a single-valued column takes; a metric named as "p95" is latency unless another metric is named. */
  private oneValue(values: string[], facts: Fact[], ref: string): string[] {
    if (values.length <= 1) return values;
    const [, column] = ref.split('.');
    const ordered = facts
      .filter((f) => f.field === column && values.includes(f.value))
      .sort((a, b) => a.at - b.at);
    return ordered.length ? [ordered[0].value] : [values[0]];
  }

  /** "<level>+" / "<level> 이상" / "<level> or above": that value and every one after it in the schema's order. */
  private expandOrdered(values: string[], text: string, property: PropertyInfo): string[] {
    const order = (property.schema.items as { enum?: string[] } | undefined)?.enum;
    if (values.length !== 1 || !order) return values;
    const escaped = escapeRegExp(values[0]);
    if (!new RegExp(`${escaped}\\s*(?:\\+|이상|or (?:above|higher|worse))`).test(text)) return values;
    return order.slice(order.indexOf(values[0]));
  }

  /**
   * Steps that analyse the items another step finds take that step's item ids: a graph step feeds the
   * others; else an item lookup feeds them; else an event history feeds measurements.
   */
  private linkSteps(
    steps: PlanStep[],
    sources: Array<{ id: string; path: string; tool: string }>,
    tools: ToolDefinition[],
  ): void {
    const definition = (name: string) => tools.find((t) => t.name === name);
    const source =
      sources.find((s) => findProperty(definition(s.tool)?.input_schema, ['scope'])) ??
      sources.find(
        (s) =>
          findProperty(definition(s.tool)?.input_schema, ['filters', 'keywords']) &&
          !findProperty(definition(s.tool)?.input_schema, ['kinds']),
      ) ??
      sources.find((s) => findProperty(definition(s.tool)?.input_schema, ['kinds']));
    if (!source) return;
    for (const step of steps.slice(steps.findIndex((s) => s.id === source.id) + 1)) {
      const tool = definition(step.tool_type);
      const idsProperty = schemaProperties(tool?.input_schema).find((p) => ID_LIST_KEY.test(p.name));
      if (!idsProperty) continue;
      step.parameters[idsProperty.name] = { $ref: source.id, path: source.path };
      step.depends_on = [source.id];
      // Items around a graph start are other items than the one named; a lookup or history narrows the named ones.
      if (!findProperty(definition(source.tool)?.input_schema, ['scope'])) continue;
      for (const key of ['item', 'scope']) delete step.parameters[key];
      for (const property of schemaProperties(tool?.input_schema).filter((p) => p.catalogTable)) {
        const filters = step.parameters[property.name] as Record<string, unknown> | undefined;
        if (!filters) continue;
        for (const key of Object.keys(filters))
          if (NAME_COLUMN.test(key) || NAME_LIST_KEY.test(key)) delete filters[key];
        if (!Object.keys(filters).length) delete step.parameters[property.name];
      }
      step.depends_on = [source.id];
    }
  }

  private columnFacts(facts: Fact[], ref: string): Fact[] {
    const [table, column] = ref.split('.');
    return facts.filter((f) => f.field === column && (f.table === null || f.table === table));
  }

  private tableFacts(facts: Fact[], table: string, catalog: CatalogIndex): Fact[] {
    return facts.filter((f) => (f.table ? f.table === table : Boolean(catalog.column(table, f.field))));
  }

  private filtersFor(
    table: string,
    facts: Fact[],
    catalog: CatalogIndex,
    allowed: Set<string> | null,
    text: string,
  ): Record<string, unknown> {
    const values = new Map<string, string[]>();
    for (const fact of this.tableFacts(facts, table, catalog)) {
      if (allowed && !allowed.has(fact.field)) continue;
      values.set(fact.field, [...(values.get(fact.field) ?? []), fact.value]);
    }
    void text;
    return Object.fromEntries(
      [...values].map(([field, list]) => [field, list.length === 1 ? list[0] : list]),
    );
  }

  /**
   * The enum value the question names for a property. A property with a default takes a value stated for
   * it explicitly (a mapping or catalog value for that field, or the value, a label of it or its Korean
   * spelling): not a value guessed from the words its name shares with the question.
   */
  private enumChoice(
    text: string,
    facts: Fact[],
    property: PropertyInfo,
    context?: EnumContext,
  ): string | null {
    if (!property.hasDefault || property.required) return this.enumFact(text, facts, property, context);
    const values = property.enumValues ?? [];
    const found = facts.filter((f) => f.field === property.name && values.includes(f.value));
    // A view named by several words: the most specific (longest keyword) wins; facts are in that order.
    if (found.length) return found[0].value;
    // Else a value the question names by itself, a label of it or its Korean spelling (a tenant's enum
    // without catalog or mappings: "경주" for gyeongju) overrides the default.
    return enumFromText(text, property, context);
  }

  private enumFact(
    text: string,
    facts: Fact[],
    property: PropertyInfo,
    context?: EnumContext,
  ): string | null {
    const values = property.enumValues ?? [];
    const fact = facts.find((f) => f.field === property.name && values.includes(f.value));
    if (fact) return fact.value;
    const literal = values.find((value) => value.length >= 3 && containsTerm(text, value.toLowerCase()));
    if (literal) return literal;
    // The value by a label its description gives it, or by its Korean spelling.
    const labelled = enumFromText(text, property, context);
    if (labelled || !property.required) return labelled;
    // Without mappings, the value whose words the question uses most ("disk read" -> disk_read_mb), if only one.
    const scored = values.map((value) => ({
      value,
      score: value
        .toLowerCase()
        .split(/[_\s-]+/)
        .filter((part) => part.length >= 2 && !/^\d+$/.test(part) && containsTerm(text, part)).length,
    }));
    const best = Math.max(0, ...scored.map((s) => s.score));
    const top = scored.filter((s) => s.score === best);
    return best > 0 && top.length === 1 ? top[0].value : null;
  }

  private purpose(step: PlanStep): string {
    const shown = Object.entries(step.parameters)
      .filter(([key]) => key !== 'time_range')
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(', ');
    return shown ? `${step.tool_type} with ${shown}` : step.tool_type;
  }
}
