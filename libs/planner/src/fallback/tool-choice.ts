import { ITEM_RECORD_FIELD, TOOL_OUTPUT_NOUN } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { isItemLookup, measuresValue, type ItemVocabulary } from '../knowledge/item-vocabulary';
import {
  findIdPath,
  findProperty,
  linkableIdFields,
  schemaProperties,
} from '../plan/schema-introspection.util';
import type { QuestionAnalysis } from './question-analysis';
import { applyNotFor } from './not-for';
import { lookupsFirst } from './lookup-first';
import { answerParts, applyRequestedActions, withQuestionMarks } from './requested-action';
import type { QuerySignals } from './query-signals.util';

export interface ToolChoiceInput {
  tools: ToolDefinition[];
  analysis: QuestionAnalysis;
  /** Per tool, the classifier's probability (or the rule score for tools with too few examples). */
  scores: Record<string, number>;
  /** The parts of the question (splitClauses). */
  clauses: string[];
  aggregation: QuerySignals['aggregation'];
  /** The item lookup tool (see isItemLookup), if any. */
  lookup: ToolDefinition | undefined;
  /** The document search tool, if any. */
  documentTool: ToolDefinition | undefined;
  /** The whole question reads as being about the tenant's documents (see document-signal). */
  documentLed: boolean;
  /** One part of a multi-part question reads so. */
  documentClause: boolean;
  options: { threshold?: number; evidenceThreshold?: number; procedureRule?: boolean };
  /** The classifier learned from labelled questions (without them, the strongest rule score decides). */
  learned: boolean;
  /** Per part (when there are several, in `clauses` order), each tool's score on that part's words alone. */
  clauseScores?: Array<Record<string, number>>;
}

/** A classifier probability this high keeps a tool even without knowledge evidence. */
const CONFIDENT = 0.7;
/** The least probability that still answers a question naming an item when no tool reached its bar. */
const NAMED_ITEM_FLOOR = 0.05;
/**
 * The same for a value shaped like some tools' input: lower, as the shape already narrows the question to
 * the tools taking it (their scores only choose among them).
 */
const SHAPED_VALUE_FLOOR = 0.02;

export { isItemLookup };

function requiredCount(tool: ToolDefinition): number {
  return schemaProperties(tool.input_schema).filter((p) => p.required).length;
}

/**
 * Whether the knowledge points at a tool directly (a value of a column it takes, a keyword mapped to it or
 * hinted for it, a value only its inputs take): such a tool needs less (the evidence threshold). The item
 * lookup counts facts on its catalog table's columns (environment, type, status) as such.
 */
export function hasOwnEvidence(
  tool: ToolDefinition,
  analysis: QuestionAnalysis,
  lookup: ToolDefinition | undefined,
): boolean {
  return (
    // An event list's environment or status is no evidence for the item lookup (see QuestionAnalysis.eventList).
    !(tool === lookup && analysis.eventList) &&
    Boolean(
      analysis.features[`column:${tool.name}`] ||
      analysis.features[`mapped:${tool.name}`] ||
      analysis.features[`hinted:${tool.name}`] ||
      analysis.features[`slot:${tool.name}`] ||
      (tool === lookup && analysis.weak[tool.name] > 0),
    )
  );
}

/**
 * Which tools a question needs: the classifier's choice (a lower bar for tools the knowledge points at
 * directly), then the rules, each read from the tools' schemas and the tenant's knowledge rather than
 * from wording: item lookups for topics and filter-described items, a named item needing no lookup, what a
 * tool returns named alone, procedure and document-led questions to the documents, no tool out of domain.
 */
export function chooseTools(input: ToolChoiceInput): ToolDefinition[] {
  const { tools, analysis, scores, clauses, aggregation, lookup, documentTool, documentLed, documentClause } =
    input;
  const { options, learned } = input;
  const { signals, facts, identifiers } = analysis;
  const items: ItemVocabulary = analysis.items;
  // The question asks about the item record itself (spec, owner): the item lookup's own words.
  const lookupAsked = analysis.matchedMappings.some(
    (m) => m.kind === 'tool' && m.value === lookup?.name && m.description === ITEM_RECORD_FIELD,
  );
  const evidence = (tool: ToolDefinition) => hasOwnEvidence(tool, analysis, lookup);
  let chosen = tools.filter(
    (tool) =>
      scores[tool.name] >= (evidence(tool) ? (options.evidenceThreshold ?? 0.3) : (options.threshold ?? 0.5)),
  );
  // A tool chosen on wording alone (nothing of the question in its description, mappings or catalog
  // columns, no item, filter, time or ranking) beside a tool whose description the question matches
  // ("내 블로그 글 목록": the blog tool, not the item lookup for "목록"), unless the classifier is confident.
  const knownFor = (tool: ToolDefinition) =>
    (analysis.features[`desc:${tool.name}`] ?? 0) > 0 || evidence(tool) || scores[tool.name] >= CONFIDENT;
  const anchoredQuestion = ['item', 'itemFilter', 'topic', 'tag', 'time', 'ranked'].some(
    (f) => analysis.features[f],
  );
  if (!anchoredQuestion && chosen.some(knownFor)) chosen = chosen.filter(knownFor);
  // Likewise, when nothing anchors the question and it reads like one tool's own description, a tool the
  // classifier picked from wording it learned elsewhere ("목록" = list, for the item lookup) gives way unless
  // its own description or a mapped word at the usual bar points at it ("내 블로그 글 목록": the blog tool).
  const descriptionMatched = (tool: ToolDefinition) => (analysis.features[`desc:${tool.name}`] ?? 0) >= 0.75;
  if (!anchoredQuestion && chosen.some(descriptionMatched))
    chosen = chosen.filter(
      (tool) =>
        (analysis.features[`desc:${tool.name}`] ?? 0) > 0 ||
        (evidence(tool) && scores[tool.name] >= (options.threshold ?? 0.5)),
    );
  // Tools chosen on wording alone (nothing of the question in their texts, mappings, catalog or inputs) give
  // way to the tool whose own inputs take values the question names ("대형 세단 5일": a class and a count).
  const ownless = (tool: ToolDefinition) =>
    !evidence(tool) && !((analysis.features[`desc:${tool.name}`] ?? 0) > 0);
  if (chosen.length && chosen.every(ownless)) {
    const slotted = tools
      .filter((tool) => (analysis.features[`slot:${tool.name}`] ?? 0) > 0)
      .sort(
        (a, b) =>
          (analysis.features[`slot:${b.name}`] ?? 0) - (analysis.features[`slot:${a.name}`] ?? 0) ||
          scores[b.name] - scores[a.name],
      );
    if (slotted.length) chosen = [slotted[0]];
  }
  // Items named by a topic ("payment rooms") are looked up by keyword first: no filter names them.
  const itemTools = chosen.filter(
    (t) => t !== lookup && schemaProperties(t.input_schema).some((p) => p.catalogTable || p.name === 'scope'),
  );
  if (
    analysis.itemTopics.length &&
    lookup &&
    !chosen.includes(lookup) &&
    (itemTools.length || chosen.length === 0)
  )
    chosen.push(lookup);
  // A named item needs no lookup beside another tool unless the question asks about the item record itself (spec, owner).
  if (lookup && identifiers.length && itemTools.length && !lookupAsked && !analysis.itemTopics.length)
    chosen = chosen.filter((t) => t !== lookup);
  // Items described only by values another chosen tool filters on itself (environment, type, status in its
  // catalog filter) need no lookup first, unless the question asks about the item records (spec, owner) or
  // the classifier is confident it does.
  const filtersItself = chosen.some(
    (t) => t !== lookup && schemaProperties(t.input_schema).some((p) => p.catalogTable),
  );
  if (
    lookup &&
    chosen.includes(lookup) &&
    filtersItself &&
    !lookupAsked &&
    !analysis.itemTopics.length &&
    scores[lookup.name] < CONFIDENT
  )
    chosen = chosen.filter((t) => t !== lookup);
  // A question about the item records themselves (spec, owner) with no time, aggregate or ranking does not
  // ask for measurements ("사양 (코어 수, 메모리)": memory is a spec here, not a metric).
  const measures = measuresValue;
  if (
    lookup &&
    chosen.includes(lookup) &&
    lookupAsked &&
    !signals.timeRange &&
    !aggregation &&
    signals.limit === null &&
    !signals.superlative
  )
    chosen = chosen.filter((t) => !measures(t));
  // A graph question about items only described by filters ("the stopped dev services") looks them up first.
  const graph = chosen.find((t) => findProperty(t.input_schema, ['scope'])?.required);
  const described = facts.some((f) => items.filterColumns.has(f.field));
  const fed = chosen.some(
    (t) =>
      t !== graph &&
      findIdPath(t.output_schema, linkableIdFields(tools)) &&
      schemaProperties(t.input_schema).some((p) => p.catalogTable),
  );
  if (graph && lookup && !identifiers.length && described && !fed) chosen.push(lookup);
  // A one-part question naming what a tool returns ("the manual for X") asks for that tool alone.
  const named = analysis.matchedMappings.find((m) => m.kind === 'tool' && m.description === TOOL_OUTPUT_NOUN);
  const namedTool = named && tools.find((t) => t.name === named.value);
  if (namedTool && clauses.length <= 1) chosen = [namedTool];
  // A procedure question that names no item, time, filter or ranking is for the documents alone.
  const docTool =
    tools.find((t) => analysis.features[`mapped:${t.name}`] && t.name === named?.value) ??
    tools.find(
      (t) =>
        findProperty(t.input_schema, ['query'])?.required &&
        (analysis.features[`mapped:${t.name}`] || analysis.features.howTo),
    );
  // Anchors: an item, a time, a ranking, an environment or status; an aggregate; an item type. An item type
  // or an aggregate word alone ("on a machine", "<type> passwords", "최소 대수") does not anchor a procedure
  // question (docTool is only there when the question names the documents or asks how to).
  const pointsAtItems =
    identifiers.length > 0 ||
    Boolean(signals.timeRange) ||
    signals.limit !== null ||
    signals.superlative ||
    facts.some((f) => items.filterColumns.has(f.field) && f.field !== items.typeColumn);
  const typeOnly = !pointsAtItems && !aggregation;
  const unanchored = typeOnly && !facts.some((f) => f.field === items.typeColumn);
  if (options.procedureRule !== false && docTool && !pointsAtItems && clauses.length <= 2) chosen = [docTool];
  // Beside the documents, a one-part question with no item, time or ranking needs no item lookup (a topic
  // word before a type, "rotating <type> passwords", does not count when the question asks a procedure).
  const procedureAsked = Boolean(
    analysis.features.howTo || (documentTool && analysis.features[`mapped:${documentTool.name}`]),
  );
  if (
    documentTool &&
    lookup &&
    chosen.includes(documentTool) &&
    clauses.length <= 1 &&
    typeOnly &&
    (!analysis.itemTopics.length || procedureAsked)
  )
    chosen = chosen.filter((t) => t !== lookup);
  // A question about what the tenant's documents say, in words the structured knowledge does not explain
  // ("VACUUM 언제 돌려?", "autoscaling min during a spike"): the documents alone. One part of a
  // multi-part question that reads so adds the documents.
  const led = documentLed;
  if (led && documentTool && clauses.length <= 1 && unanchored) chosen = [documentTool];
  if (documentClause && documentTool && !chosen.includes(documentTool)) chosen.push(documentTool);
  // General knowledge, a translation or a piece of writing that names no item, time, filter or ranking:
  // no tool, even when a word of it is the tenant's vocabulary ("'<word>' in Japanese", "API 뜻").
  // (An aggregate word does not anchor it: "what does X mean" reads "mean" as the average.)
  if (analysis.features.general && !pointsAtItems && !analysis.itemTopics.length && !namedTool && !led)
    chosen = [];
  // Nothing in the question touches the operated systems (nor the documents): a general question, no tool.
  if (!analysis.inDomain && !led) chosen = [];
  // A question naming one of the operated items (or a topic to look items up by, or describing items by
  // environment, type or status) is about them: when no tool reached its bar, the likeliest one that is not
  // the document search answers it.
  if (
    !chosen.length &&
    learned &&
    (identifiers.length || analysis.itemTopics.length || analysis.features.itemFilter) &&
    !analysis.features.general
  ) {
    const best = tools
      .filter((tool) => tool !== documentTool)
      .sort((a, b) => scores[b.name] - scores[a.name])[0];
    if (best && scores[best.name] >= NAMED_ITEM_FLOOR) chosen = [best];
  }
  // A value shaped like some tools' own input ("AB-123456" for inputs with that pattern): when no tool reached
  // its bar, the likeliest of the tools taking it answers (the value says the question is for one of them).
  if (!chosen.length && analysis.shaped.length && !analysis.features.general) {
    const owners = new Set(analysis.shaped.flatMap((value) => value.tools));
    const best = tools
      .filter((tool) => owners.has(tool.name))
      .sort((a, b) => scores[b.name] - scores[a.name])[0];
    if (best && scores[best.name] >= SHAPED_VALUE_FLOOR) chosen = [best];
  }
  if (!chosen.length && !learned) {
    const byWeak = tools
      .filter((tool) => analysis.weak[tool.name] > 0)
      .sort((a, b) => analysis.weak[b.name] - analysis.weak[a.name] || requiredCount(a) - requiredCount(b));
    if (byWeak.length) chosen = [byWeak[0]];
  }
  // The actions the question requests (cancel, refund, send...) are done by the tools that perform them, or by none.
  const shapedOwners = new Set(analysis.shaped.flatMap((value) => value.tools));
  // A part asked as a question ("...?") asks to be shown something.
  const parts = withQuestionMarks(analysis.text, clauses);
  const partOwners = parts.map(
    (part) =>
      new Set(
        analysis.shaped
          .filter((value) => part.toLowerCase().includes(value.value))
          .flatMap((value) => value.tools),
      ),
  );
  const acted = applyRequestedActions(
    parts,
    tools,
    applyNotFor(analysis.text, tools, chosen),
    scores,
    shapedOwners,
    input.clauseScores ?? [],
  );
  // A chosen tool needing an identifier the question does not give has the record looked up first; then the
  // parts asking to be shown something get their readers.
  const looked = lookupsFirst(
    tools,
    acted,
    analysis.shaped.map((value) => value.value),
  );
  return answerParts(parts, tools, looked, input.clauseScores ?? [], partOwners);
}
