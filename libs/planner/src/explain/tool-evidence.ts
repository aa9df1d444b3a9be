import { hintTexts, type MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { contentTerms, normalizeText, queryHasTerm } from '../knowledge/text-match.util';
import type { ToolEvidence, ToolExplanation } from '../plan/plan.types';
import { schemaProperties } from '../plan/schema-introspection.util';
import type { FallbackTrace } from '../fallback/fallback-planner';
import { HINT_KEYWORD } from '../fallback/hint-keyword';
import {
  describedTerms,
  inverseDocumentFrequency,
  SCHEMA_WEIGHT,
  schemaTerms,
  termMatcher,
} from '../fallback/question-analysis';
import { hasOwnEvidence } from '../fallback/tool-choice';

/** Tools listed besides the chosen ones: those scored above zero or with evidence, best first, at most this many. */
const LISTED_TOOLS = 12;
/** Example texts (hints, labelled questions) shown per tool. */
const EXAMPLES_SHOWN = 2;
/** A `not_for` hint counts against a tool when the question has this share of its words. */
const NOT_FOR_SHARE = 0.5;
/** A hint example is shown when the question has this share of its words (one shared word of four is noise). */
const EXAMPLE_SHARE = 0.3;
/** A labelled question is shown when the question has this share of its words. */
const LABELLED_SHARE = 0.5;

const round = (value: number) => Math.round(value * 100) / 100;
const clip = (text: string, length = 160) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** What a question is read as for matching published text: its normalised text and content terms. */
export interface QuestionTerms {
  lower: string;
  terms: Set<string>;
}

export function questionTerms(text: string): QuestionTerms {
  return { lower: normalizeText(text), terms: contentTerms(text) };
}

/** The terms of a published text the question contains. */
function sharedTerms(question: QuestionTerms, text: string): { shared: string[]; total: number } {
  const terms = contentTerms(text);
  const shared = [...terms].filter((term) => queryHasTerm(question.lower, question.terms, term));
  return { shared, total: terms.size };
}

/** The texts (hint examples, not_for, labelled questions) the question shares most words with, best first. */
function closest(
  question: QuestionTerms,
  texts: string[],
  minShare: number,
): Array<{ text: string; shared: string[]; share: number }> {
  return texts
    .map((text) => {
      const { shared, total } = sharedTerms(question, text);
      return { text, shared, share: total ? shared.length / total : 0 };
    })
    .filter((match) => match.shared.length > 0 && match.share >= minShare)
    .sort((a, b) => b.share - a.share || b.shared.length - a.shared.length)
    .slice(0, EXAMPLES_SHOWN);
}

/** The description words (name, description, hint keywords) the question contains, with their idf weight. */
function descriptionEvidence(
  tool: ToolDefinition,
  question: QuestionTerms,
  idf: Map<string, number>,
): ToolEvidence[] {
  const own = describedTerms(`${tool.name.replace(/_/g, ' ')} ${tool.description}`);
  const hinted = describedTerms(hintTexts(tool.planning_hints?.keywords ?? undefined).join(' '));
  const has = termMatcher(question.lower, question.terms);
  const matched = (terms: Set<string>) => [...terms].filter(has);
  const weight = (terms: string[], share = 1) =>
    round(terms.reduce((sum, term) => sum + share * (idf.get(term) ?? 0), 0));
  const described = matched(own);
  const fromHints = matched(hinted).filter((term) => !own.has(term));
  const fromEnums = matched(schemaTerms(tool));
  const evidence: ToolEvidence[] = [];
  if (fromEnums.length)
    evidence.push({
      source: 'schema_enum',
      text: 'words of the values its enum inputs take',
      matched: fromEnums,
      value: weight(fromEnums, SCHEMA_WEIGHT),
    });
  if (described.length)
    evidence.push({
      source: 'description',
      text: clip(tool.description),
      matched: described,
      value: weight(described),
    });
  if (fromHints.length)
    evidence.push({
      source: 'hint_keyword',
      text: hintTexts(tool.planning_hints?.keywords ?? undefined)
        .filter((keyword) => [...contentTerms(keyword)].some((term) => fromHints.includes(term)))
        .join(', '),
      matched: fromHints,
      value: weight(fromHints),
    });
  return evidence;
}

/** The question's facts (catalog values, mapped values) that fill one of the tool's inputs. */
function catalogEvidence(tool: ToolDefinition, trace: FallbackTrace): ToolEvidence[] {
  const { analysis } = trace;
  const evidence: ToolEvidence[] = [];
  const seen = new Set<string>();
  for (const property of schemaProperties(tool.input_schema)) {
    const [table, column] = property.catalogColumn?.split('.') ?? [null, null];
    for (const fact of analysis.facts) {
      const fills = property.catalogColumn
        ? fact.field === column && (fact.table === null || fact.table === table)
        : property.catalogTable
          ? fact.table === property.catalogTable
          : Boolean(property.enumValues?.includes(fact.value) && fact.field === property.name);
      if (!fills) continue;
      const key = `${property.name}:${fact.field}:${fact.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const keyword = analysis.matchedMappings.find(
        (m) => m.kind !== 'tool' && String(m.value) === fact.value,
      )?.keyword;
      evidence.push({
        source: keyword ? 'mapping_keyword' : 'catalog_value',
        text: `${fact.table ? `${fact.table}.` : ''}${fact.field} = ${fact.value} (input ${property.name})`,
        ...(keyword ? { matched: [keyword] } : {}),
      });
    }
  }
  return evidence;
}

export interface ToolEvidenceInput {
  query: string;
  tools: ToolDefinition[];
  trace: FallbackTrace;
  /** The tenant's mapping content (its labelled questions). */
  mappings: MappingContent | null;
}

/** Per tool: its score, the threshold that applied, the published text behind the score, and the decision. */
export function explainTools(input: ToolEvidenceInput): ToolExplanation[] {
  const { trace, tools } = input;
  const question = questionTerms(input.query);
  const idf = inverseDocumentFrequency(tools);
  const lookup = tools.find((tool) => tool.name === trace.lookup);
  const labelled = input.mappings?.examples ?? [];
  const chosen = new Set(trace.chosen);
  const explained = tools.map((tool) => {
    const evidence: ToolEvidence[] = [];
    const examples = trace.examples[tool.name] ?? 0;
    const scoredBy = examples >= trace.minExamples ? 'classifier' : 'evidence';
    const probability = trace.probabilities[tool.name];
    if (probability !== undefined && trace.classifier === 'ready')
      evidence.push({
        source: 'classifier',
        text: `probability from ${examples} labelled question${examples === 1 ? '' : 's'}`,
        value: round(probability),
      });
    if (scoredBy === 'evidence' && trace.evidenceScores[tool.name])
      evidence.push({
        source: 'evidence_score',
        text: "its own evidence relative to the best-supported tool's",
        value: round(trace.evidenceScores[tool.name]),
      });
    evidence.push(...descriptionEvidence(tool, question, idf));
    for (const mapping of trace.analysis.matchedMappings)
      if (mapping.kind === 'tool' && mapping.value === tool.name)
        evidence.push({
          source: mapping.description === HINT_KEYWORD ? 'hint_keyword' : 'mapping_keyword',
          text: mapping.keyword,
          matched: [mapping.keyword],
        });
    for (const example of closest(
      question,
      hintTexts(tool.planning_hints?.examples ?? undefined),
      EXAMPLE_SHARE,
    ))
      evidence.push({ source: 'hint_example', text: example.text, matched: example.shared });
    for (const example of closest(
      question,
      hintTexts(tool.planning_hints?.not_for ?? undefined),
      NOT_FOR_SHARE,
    ))
      evidence.push({ source: 'not_for', text: example.text, matched: example.shared, against: true });
    const ownLabelled = labelled.filter((example) => example.tools.includes(tool.name)).map((e) => e.text);
    if (ownLabelled.length && (chosen.has(tool.name) || (trace.scores[tool.name] ?? 0) > 0))
      for (const example of closest(question, ownLabelled, LABELLED_SHARE).slice(0, 1))
        evidence.push({ source: 'labelled_example', text: example.text, matched: example.shared });
    for (const slot of trace.slots[tool.name] ?? [])
      evidence.push({
        source: slot.kind === 'enum' ? 'schema_enum' : 'schema_pattern',
        text: `${slot.property} = ${slot.value}`,
      });
    evidence.push(...catalogEvidence(tool, trace));
    if (tool.name === trace.document.tool && trace.document.evidence && trace.document.evidence.unexplained)
      evidence.push({
        source: 'document',
        text: `${trace.document.evidence.unexplained} word(s) of the question the other knowledge does not explain are in a passage of the tenant's documents`,
        value: round(trace.document.evidence.coverage),
      });
    // A hint keyword matched whole is also a hint keyword's words in the description evidence: named once.
    const named = new Set<string>();
    const distinct = evidence.filter((e) => {
      const key = `${e.source}\n${e.text}`;
      return named.has(key) ? false : (named.add(key), true);
    });
    const own = hasOwnEvidence(tool, trace.analysis, lookup);
    const bar = own ? trace.thresholds.evidence : trace.thresholds.tool;
    const score = trace.scores[tool.name] ?? 0;
    return {
      tool: tool.name,
      score,
      chosen: chosen.has(tool.name),
      scored_by: scoredBy,
      labelled_examples: examples,
      bar,
      decision: decision(tool, score, bar, own, trace),
      evidence: distinct,
    } satisfies ToolExplanation;
  });
  const listed = explained
    .filter(
      (tool) =>
        tool.chosen ||
        tool.score > 0 ||
        tool.evidence.some((e) => e.source !== 'classifier' && e.source !== 'evidence_score'),
    )
    .sort((a, b) => Number(b.chosen) - Number(a.chosen) || b.score - a.score || a.tool.localeCompare(b.tool));
  const kept = [
    ...listed.filter((tool) => tool.chosen),
    ...listed.filter((tool) => !tool.chosen).slice(0, LISTED_TOOLS),
  ];
  return kept.sort((a, b) => b.score - a.score || Number(b.chosen) - Number(a.chosen));
}

/** Why a tool was chosen or left out, in a sentence an admin reads. */
function decision(
  tool: ToolDefinition,
  score: number,
  bar: number,
  own: boolean,
  trace: FallbackTrace,
): string {
  const { analysis } = trace;
  const reached = score >= bar;
  const barName = own ? 'the threshold for a tool the knowledge points at directly' : 'the threshold';
  const chosen = trace.chosen.includes(tool.name);
  if (chosen && reached) return `chosen: score ${score} reached ${barName} (${bar})`;
  if (chosen) {
    const why =
      tool.name === trace.lookup && analysis.itemTopics.length
        ? `the question names items by a topic (${analysis.itemTopics.join(', ')}), looked up first`
        : tool.name === trace.document.tool && (trace.document.led || trace.document.clause)
          ? "the question (or a part of it) is in words only the tenant's documents explain"
          : tool.name === trace.lookup
            ? 'the other chosen tools work on the items it finds'
            : 'no tool reached its threshold and the question names an item: the likeliest tool answers it';
    return `chosen below ${barName} (score ${score} < ${bar}): ${why}`;
  }
  if (reached) {
    const why = !analysis.inDomain
      ? "the question names nothing the tenant's knowledge knows (no keyword, catalog value, item or described word)"
      : analysis.features.general
        ? 'the question asks for general knowledge, a translation or a piece of writing, not for the tools'
        : trace.chosen.length
          ? `a choice rule kept ${trace.chosen.join(', ')} instead (a more direct answer to the question)`
          : 'a choice rule answered the question with no tool';
    return `left out although its score ${score} reached ${barName} (${bar}): ${why}`;
  }
  return `left out: score ${score} is below ${barName} (${bar})${score > 0 ? `, ${round(bar - score)} short` : ''}`;
}
