import { hintTexts, ITEM_RECORD_FIELD, type KeywordMapping, type MappingContent } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { CatalogIndex, type CatalogValueHit } from '../knowledge/catalog-index';
import { containsTerm, contentTerms, normalizeText, queryHasTerm } from '../knowledge/text-match.util';
import { schemaProperties } from '../plan/schema-introspection.util';
import { extractSignals, QuerySignals } from './query-signals.util';
import { HINT_KEYWORD } from './hint-keyword';
import { isItemLookup, itemVocabulary, namesItems, type ItemVocabulary } from '../knowledge/item-vocabulary';
import { shapedInputs, shapeOwners } from './slot-values';

/** A value the question names: a catalog value or a mapped keyword, with the field it belongs to. */
export interface Fact {
  field: string;
  value: string;
  table: string | null;
  /** Where in the question it was named (for clause-level decisions). */
  at: number;
  /** The data source whose catalog lists the value; absent when any source's tool may take it. */
  source?: string;
}

/** Whether a fact may fill a parameter of a tool reading `source` (catalog values belong to their source). */
export const factFitsSource = (fact: Fact, source: string): boolean => !fact.source || fact.source === source;

/** What a question says, read against the tenant's knowledge (catalog, mappings, tool descriptions). */
export interface QuestionAnalysis {
  text: string;
  /** The text without item names. */
  factText: string;
  signals: QuerySignals;
  matchedMappings: KeywordMapping[];
  facts: Fact[];
  /** Item names (eu-payment-api) and tag-like names (tier-1) the question mentions. */
  identifiers: string[];
  /**
   * Values the question gives in the shape of a tool's own input ("AB-123456" for an input with the pattern
   * "^AB-\\d{6}$"), with the tools taking that shape: values of those inputs, not item names.
   */
  shaped: Array<{ value: string; tools: string[] }>;
  tags: string[];
  regions: string[];
  /** Words to look items up by ("payment" in "payment rooms", "order 관련 서비스"). */
  itemTopics: string[];
  /** Words to search event texts for ("disk" in "disk 관련 문의"). */
  textTopics: string[];
  /** Per tool: description-term overlap, mapping and catalog-column evidence. */
  strong: Record<string, number>;
  weak: Record<string, number>;
  /** The question touches the operated systems: a catalog value, an item, a tool keyword or a topic. */
  inDomain: boolean;
  /**
   * A list of events ("어제 예약 목록", "cancelled booking list"): an event kind and no item type nor field of the item
   * record is named. It is no list of items: the item lookup's words and columns do not point at it.
   */
  eventList: boolean;
  /** Named signals for the intent classifier. */
  features: Record<string, number>;
  /** What the knowledge says about the items the tools look up (see item-vocabulary). */
  items: ItemVocabulary;
}

/** Description evidence (idf-weighted terms of a tool's description and hints, of 4) that puts a question in domain. */
const DESCRIBED = 0.5;
const RELATED = /^(?:related|관련|계열)$/;
/** Korean "<topic> 쪽/팀/관련 <type>" ("주문 쪽 서비스", "배송팀 자산", "검색 관련 앱"). */
const KO_TOPIC_LINK = /^(?:관련|계열|쪽|팀|파트)$/;
const KO_TEAM = /^[\uac00-\ud7a3]{2,}(?:팀|쪽|파트)$/;
/** Hyphenated words that are not item names nor tags ("warning-level", "user-related"). */
const REGION = /^(?:ap|us|eu|sa|ca|me|af|il)-[a-z]+-\d[a-z]?$/;
/** Teams ("결제팀", "리뷰팀이", "catalog team", "shipping team's"): the items they own are looked up by the team's
 * name ("리뷰" matches the items described "리뷰 api 서비스", "catalog" the owner catalog-team). */
const KO_TEAM_WORD = /([\uac00-\ud7a3]+)팀(?=이|은|는|의|에서|이랑|랑|에|꺼|거|들|\s|$|[,.?!])/g;
/** Not the last part of a hyphenated word ("on-call team" is no team named "call"). */
const EN_TEAM_WORD = /(?<![\w-])([a-z][a-z0-9]*)\s+team(?:'s|s)?\b/g;
/** "담당팀" (the owning team), "어느 팀", "our team", "ops team": not a team's name. */
const NOT_A_TEAM =
  /^(?:담당|어느|무슨|어떤|우리|같은|해당|각|운영|전담|개발|상대|관련|유관|타|다른|모든|전|여러|협력|which|what|whose|my|our|your|the|same|each|that|this|a|an|any|other|every|owning|responsible|oncall|ops|sre|support|on)$/;
/** English compounds ("highest-latency", "connection-wise", "io-heavy"): a ranking or degree word before the
 * hyphen, or a suffix-like word after it, makes a two-part hyphenated word an adjective, not an item name. */
const NOT_A_NAME =
  /^(?:(?:highest|lowest|most|least|high|low|worst|best|busiest|slowest|fastest|non|self|multi|cross|over|under)-[a-z]+|[a-z0-9]+-(?:level|related|based|wide|ish|like|wise|heavy|bound|intensive|hungry|driven|facing|side|free|only|ready|aware|specific|sensitive))$/;
/**
 * English words made of a verb and its particle ("check-in", "walk-ins", "drop-off"), a prefix and a word
 * ("no-show", "pre-op", "re-run") or words around a preposition ("out-of-range", "up-to-date"): words of the
 * language, not item names.
 */
const COMPOUND_WORD =
  /^(?:[a-z]+-(?:in|on|out|up|off|down|by|over|away|back)s?|(?:no|pre|post|re|co|anti|semi|sub|ex)-[a-z]+|[a-z]+(?:-[a-z]+)*-(?:of|to|and|or|on|in|the|a|by|for)-[a-z]+)$/;

/**
 * A piece of writing or a translation asked for (language mechanics, any business): "draft an email to ...",
 * "write a short text reminding ...", "translate ... into Japanese", "사과 메일 초안 써줘", "일본어로 뭐라고 해".
 */
const WRITING =
  /\b(?:write|draft|compose|rephrase|reword|proofread)\b(?:\s+[\w'-]+){0,4}?\s+(?:e-?mail|mail|reply|message|text|note|letter|post|response|apology|announcement|notice|sms|caption|slogan)s?\b|^(?:(?:please|pls|can you|could you)\s+)?translate\b|\binto (?:english|korean|japanese|chinese|french|german|spanish)\b|(?:초안|문구|메일|이메일|문자|답장|답글|안내문|공지문|편지|사과문)\s*(?:좀\s*)?(?:써|작성)|번역|(?:영어|일본어|중국어|한국어|영문|일어)로\s*.{0,40}?(?:뭐라고|어떻게\s*(?:말|써))/;
/** General knowledge: "what's the difference between X and Y", "X랑 Y 차이가 뭐야". */
const GENERAL_KNOWLEDGE =
  /\bwhat(?:'s|s| is| are)? the difference between\b|\bdifference between (?:a |an |the )?[\w-]+ and\b|차이(?:가|점이?|는)?\s*(?:뭐|무엇|뭔)/;

/** An English word without its inflection ("booked", "booking", "books" -> "book"). */
export function stemWord(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3).replace(/(.)\1$/, '$1');
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('ed'))
    return word
      .slice(0, -2)
      .replace(/(.)\1$/, '$1')
      .replace(/e$/, '');
  if (word.length > 4 && word.endsWith('es') && /(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss'))
    return word.slice(0, -1).replace(/e$/, '');
  return word.replace(/e$/, '');
}

/** Whether two words differ by at most one edit or one swap of neighbours (typos: "memroy", "latnecy"). */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length)
    return (
      a.slice(i + 1) === b.slice(i + 1) ||
      (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
    );
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** A one-word English keyword matches an inflected form or, from six letters, a one-typo form of it. */
function wordMatches(keyword: string, words: string[], stems: Set<string>): boolean {
  if (!/^[a-z][a-z0-9]+$/.test(keyword) || keyword.length < 4) return false;
  if (stems.has(stemWord(keyword))) return true;
  return keyword.length >= 6 && words.some((word) => word.length >= 6 && oneEditApart(word, keyword));
}

/** The enumerated values of one property schema: `enum`, `items.enum`, or those of its alternatives. */
function enumsOf(schema: Record<string, unknown> | undefined): string[] {
  if (!schema) return [];
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(String);
  const items = schema.items as Record<string, unknown> | undefined;
  if (items && Array.isArray(items.enum)) return (items.enum as unknown[]).map(String);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Array<Record<string, unknown>> | undefined;
  return [...new Set((alternatives ?? []).flatMap((alternative) => enumsOf(alternative)))];
}

/**
 * Values the tools' own input schemas enumerate for catalog columns and for the filters on a catalog
 * table (environment, type, status, metric, event kind): knowledge that is there before any catalog is.
 */
export function schemaEnumValues(tools: ToolDefinition[]): CatalogValueHit[] {
  const hits: CatalogValueHit[] = [];
  const add = (table: string, column: string, values: string[]) => {
    for (const value of values)
      if (!hits.some((h) => h.column === column && h.value === value)) hits.push({ table, column, value });
  };
  for (const tool of tools)
    for (const property of schemaProperties(tool.input_schema)) {
      if (property.catalogColumn) {
        const [table, column] = property.catalogColumn.split('.');
        add(table, column, enumsOf(property.schema));
      } else if (property.catalogTable) {
        for (const inner of schemaProperties(property.schema))
          add(property.catalogTable, inner.name, enumsOf(inner.schema));
      }
    }
  return hits;
}

/** The type column of another table's rows (an event's kind), as item-vocabulary reads an item's type. */
const TYPE_OF_ROW = /(?:^|_)(?:type|kind|category|class)$/;

/** The column a measuring tool's required catalog-column parameter names (what `metric` mappings map to). */
export function measureColumn(tools: ToolDefinition[]): string | null {
  for (const tool of tools)
    for (const property of schemaProperties(tool.input_schema))
      if (property.catalogColumn && property.required && property.type === 'string')
        return property.catalogColumn.split('.').pop() ?? null;
  return null;
}

export function knowledgeFacts(
  text: string,
  catalog: CatalogIndex,
  mappings: KeywordMapping[],
  schemaValues: CatalogValueHit[] = [],
  /** The column a `metric` mapping's value belongs to when no catalog lists it (see measureColumn). */
  measureField: string | null = null,
): Fact[] {
  const facts: Fact[] = [];
  const add = (fact: Fact) => {
    const same = facts.find((f) => f.field === fact.field && f.value === fact.value);
    if (!same) facts.push(fact);
    // A value several sources' catalogs list is not one source's.
    else if (same.source !== fact.source) delete same.source;
  };
  const catalogValues = catalog.allEnumValues();
  const enumValues = [
    ...catalogValues,
    ...schemaValues.filter((h) => !catalogValues.some((c) => c.column === h.column && c.value === h.value)),
  ];
  for (const mapping of mappings) {
    if (mapping.kind === 'tool' || mapping.kind === 'aggregation') continue;
    const at = text.indexOf(keywordText(mapping.keyword));
    const located = enumValues.find(
      (hit) => hit.value === mapping.value && (!mapping.field || hit.column === mapping.field),
    );
    if (located) {
      // The same column in every source whose catalog lists the value (one fact; see add()).
      for (const hit of enumValues.filter((h) => h.value === located.value && h.column === located.column))
        add({
          field: hit.column,
          value: hit.value,
          table: hit.table,
          at,
          ...(hit.source ? { source: hit.source } : {}),
        });
    } else if (mapping.field) add({ field: mapping.field, value: mapping.value, table: null, at });
    else if (mapping.kind === 'metric' && measureField)
      add({ field: measureField, value: mapping.value, table: null, at });
  }
  const mapped = new Set(facts.map((f) => f.value));
  for (const hit of enumValues) {
    if (mapped.has(hit.value)) continue;
    if (hit.value.length >= 2 && containsTerm(text, hit.value.toLowerCase()))
      add({
        field: hit.column,
        value: hit.value,
        table: hit.table,
        at: text.indexOf(hit.value.toLowerCase()),
        ...(hit.source ? { source: hit.source } : {}),
      });
  }
  return facts;
}

/**
 * The values a tool's own enum inputs take, as words ("front_desk" -> "front desk"; catalog-backed inputs are
 * the catalog's evidence): what its owner wrote into the schema about the things the tool is asked about.
 */
function schemaText(tool: ToolDefinition): string {
  return schemaProperties(tool.input_schema)
    .filter((property) => !property.catalogColumn && !property.catalogTable)
    .flatMap((property) => enumsOf(property.schema).map((value) => value.replace(/_/g, ' ')))
    .join(' ');
}

/** Korean verb endings and copulas after a word of a description ("청소중인지", "근무하는지", "검색합니다"). */
const KO_ENDING =
  /(?:하는지|되는지|인지|는지|합니다|됩니다|습니다|입니다|니다|하고|되고|하며|하면|되면|으면|하여|해서|한다|된다|하는|되는|됨|함|중)$/;

/**
 * The content terms of a published text (a description, hint keywords), with each Korean word also without
 * its ending, as the question words it ("근무하는지": 근무).
 */
export function describedTerms(text: string): Set<string> {
  const terms = contentTerms(text);
  for (const term of [...terms]) {
    const stem = term.replace(KO_ENDING, '');
    if (stem !== term && stem.length >= 2) terms.add(stem);
  }
  return terms;
}

/** Content terms per tool name and description (read for every question, computed once). */
const TOOL_TERMS = new Map<string, Set<string>>();

export function toolTerms(tool: ToolDefinition): Set<string> {
  const key = `${tool.name}\n${tool.description}\n${JSON.stringify(tool.planning_hints ?? null)}`;
  let terms = TOOL_TERMS.get(key);
  if (!terms) {
    // Names of other tools and values (snake_case: other_tool, some_value) in a description say nothing about this tool.
    const description = tool.description.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, ' ');
    // The owner's hint keywords count as its description (its example questions train the classifier: their
    // everyday words, "today", "show me", would read as this tool's vocabulary here).
    const hints = hintTexts(tool.planning_hints?.keywords ?? undefined).join(' ');
    terms = describedTerms(`${tool.name.replace(/_/g, ' ')} ${description} ${hints}`);
    if (TOOL_TERMS.size > 5000) TOOL_TERMS.clear();
    TOOL_TERMS.set(key, terms);
  }
  return terms;
}

/** Content terms of a tool's enum values that its name, description and hint keywords do not have. */
const SCHEMA_TERMS = new WeakMap<ToolDefinition, Set<string>>();
export { SCHEMA_WEIGHT };
export function schemaTerms(tool: ToolDefinition): Set<string> {
  let terms = SCHEMA_TERMS.get(tool);
  if (!terms) {
    const own = toolTerms(tool);
    terms = new Set([...contentTerms(schemaText(tool))].filter((term) => !own.has(term)));
    SCHEMA_TERMS.set(tool, terms);
  }
  return terms;
}
/**
 * What a word of a tool's enum values weighs against a word of its description: half (a value such as
 * "closed_won" names a state of the records, not what the tool is for; picked on the tuning suite:
 * 0.35, 0.5, 0.7 and 1 were tried, BENCHMARKS.md).
 */
const SCHEMA_WEIGHT = 0.5;

/**
 * Whether a question (its lower-cased text and content terms) has a term of a tool's texts: Korean terms inside
 * its words, English words by stem ("cleaned", "cleaning": clean).
 */
export function termMatcher(
  text: string,
  terms: Set<string> = contentTerms(text),
): (term: string) => boolean {
  const stems = new Set([...terms].filter((term) => /^[a-z]/.test(term)).map(stemWord));
  return (term) => queryHasTerm(text, terms, term) || (/^[a-z]{4,}$/.test(term) && stems.has(stemWord(term)));
}

export function inverseDocumentFrequency(tools: ToolDefinition[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const tool of tools)
    for (const term of new Set([...toolTerms(tool), ...schemaTerms(tool)]))
      counts.set(term, (counts.get(term) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [term, count] of counts) idf.set(term, Math.log(1 + tools.length / count));
  return idf;
}

/**
 * Words the tenant's knowledge knows (mapping keywords, catalog values and aliases, tool descriptions):
 * a word outside them next to an item noun or "related" is a topic to look items up by ("payment rooms").
 */
const EMPTY_KNOWLEDGE = {};
const KNOWN_WORDS = new WeakMap<object, Set<string>>();

function knownWords(catalog: CatalogIndex, mappings: KeywordMapping[], content: object): Set<string> {
  const cached = KNOWN_WORDS.get(content);
  if (cached) return cached;
  const known = new Set<string>();
  KNOWN_WORDS.set(content, known);
  const addAll = (text: string) => {
    for (const word of normalizeText(text).match(/[a-z][a-z0-9]+/g) ?? []) known.add(word);
  };
  for (const mapping of mappings) addAll(mapping.keyword);
  for (const table of catalog.content?.tables ?? [])
    for (const column of table.columns) {
      for (const value of column.enum_values ?? []) addAll(value);
      for (const alias of column.aliases ?? []) addAll(alias);
    }
  addAll(
    'all every the these those other any some my our which what top bottom most least high low highest lowest busy ' +
      'and or of in on for with by per last past this each one only just new old list show find get give ' +
      'display check compare see tell pls please are is were was have has any many much how when where why who whose ' +
      'from across among between into over under about up down out off same other more less ' +
      'busiest slowest fastest worst best hot cold idle large small big its their them they it those these whatever ' +
      'whichever your our his her all both either neither such',
  );
  return known;
}

/** Mapping keywords as matched, normalised once (every question reads every keyword of the tenant). */
const KEYWORD_TEXT = new Map<string, string>();
function keywordText(keyword: string): string {
  let normalized = KEYWORD_TEXT.get(keyword);
  if (normalized === undefined) {
    if (KEYWORD_TEXT.size > 50_000) KEYWORD_TEXT.clear();
    normalized = normalizeText(keyword);
    KEYWORD_TEXT.set(keyword, normalized);
  }
  return normalized;
}

/** A tenant's mappings, longest keyword first (sorted once per mapping content). */
const SORTED_MAPPINGS = new WeakMap<object, KeywordMapping[]>();
function longestFirst(content: MappingContent | null): KeywordMapping[] {
  if (!content) return [];
  let sorted = SORTED_MAPPINGS.get(content);
  if (!sorted) {
    sorted = [...content.mappings].sort((a, b) => b.keyword.length - a.keyword.length);
    SORTED_MAPPINGS.set(content, sorted);
  }
  return sorted;
}

/** The known words of five letters or more by length (the candidates a typo is compared with). */
const KNOWN_BY_LENGTH = new WeakMap<Set<string>, Map<number, string[]>>();
function knownByLength(known: Set<string>): Map<number, string[]> {
  let index = KNOWN_BY_LENGTH.get(known);
  if (!index) {
    index = new Map();
    for (const word of known)
      if (word.length >= 5) index.set(word.length, [...(index.get(word.length) ?? []), word]);
    KNOWN_BY_LENGTH.set(known, index);
  }
  return index;
}

/**
 * Typos of the words the tenant's knowledge knows ("erorr rate", "lantency", "depolyments"): an English word
 * of five letters or more that the knowledge does not know, nor its stem, and that is one edit or one swap
 * away from exactly one known word, is read as that word (a fuzzy match against the tenant's vocabulary).
 */
function correctTypos(text: string, known: Set<string>): string {
  return text.replace(/[a-z]{5,}/g, (word) => {
    if (known.has(word) || known.has(stemWord(word))) return word;
    let match: string | null = null;
    const byLength = knownByLength(known);
    const candidates = [word.length - 1, word.length, word.length + 1].flatMap((n) => byLength.get(n) ?? []);
    for (const candidate of candidates) {
      if (!oneEditApart(word, candidate)) continue;
      if (match && stemWord(match) !== stemWord(candidate)) return word;
      match = match ?? candidate;
    }
    return match ?? word;
  });
}

/** Per tool, its inputs with a distinctive shape (see shapedInputs; computed once per definition). */
const TOOL_SHAPES = new WeakMap<ToolDefinition, ReturnType<typeof shapedInputs>>();
function toolShapes(tools: ToolDefinition[]): ReturnType<typeof shapedInputs> {
  return tools.flatMap((tool) => {
    let shapes = TOOL_SHAPES.get(tool);
    if (!shapes) {
      shapes = shapedInputs([{ name: tool.name, properties: schemaProperties(tool.input_schema) }]);
      TOOL_SHAPES.set(tool, shapes);
    }
    return shapes;
  });
}

/** The tokens of a question shaped like a tool's input, each with the tools taking it. */
export function shapedValues(
  query: string,
  tools: ToolDefinition[],
): Array<{ value: string; tools: string[] }> {
  const shapes = toolShapes(tools);
  if (!shapes.length) return [];
  const found: Array<{ value: string; tools: string[] }> = [];
  for (const raw of query.normalize('NFC').split(/[\s,;!?()[\]{}"'“”‘’]+/)) {
    // A Korean particle after the value ("AB-123456번", "AB-123456의"), a full stop or colon at the end.
    const token = raw.replace(/[.:。]+$/, '').replace(/[\uac00-\ud7a3]+$/, '');
    if (!token || found.some((f) => f.value === token.toLowerCase())) continue;
    const owners = shapeOwners(token, shapes);
    if (owners.length)
      found.push({ value: token.toLowerCase(), tools: [...new Set(owners.map((o) => o.tool))] });
  }
  return found;
}

export function analyseQuestion(
  query: string,
  tools: ToolDefinition[],
  catalog: CatalogIndex,
  mappingContent: MappingContent | null,
  now: Date,
): QuestionAnalysis {
  const text = normalizeText(query);
  const items = itemVocabulary(tools, catalog, mappingContent);
  const signals = extractSignals(query, now, items.nouns);
  const mappings = longestFirst(mappingContent);
  // Cloud regions ("ap-northeast-2") are an item attribute, not an item.
  const regions = signals.identifiers.filter((id) => REGION.test(id));
  // A hyphenated word the mappings know ("on-call", "follow-up") is vocabulary, not an item name.
  const vocabulary = new Set(mappings.map((m) => keywordText(m.keyword)));
  // A value shaped like a tool's own input ("AB-123456") is that input's value, not an item's name.
  const shaped = shapedValues(query, tools);
  const names = signals.identifiers.filter(
    (id) =>
      !NOT_A_NAME.test(id) &&
      !COMPOUND_WORD.test(id) &&
      !REGION.test(id) &&
      !vocabulary.has(id) &&
      !shaped.some((v) => v.value === id),
  );
  // A tag is what the catalog gives as a tag example or what the question calls a tag; the rest are item names.
  const tagColumns = (catalog.content?.tables ?? []).flatMap((t) =>
    t.columns.filter((c) => c.name === 'tags'),
  );
  const tagExamples = normalizeText(tagColumns.map((c) => c.description ?? '').join(' '));
  const isTag = (id: string) =>
    containsTerm(tagExamples, id) ||
    new RegExp(`${id}\\s*(?:태그|tags?)|tag(?:ged)?\\s+(?:with\\s+)?${id}`).test(text);
  const tags = names.filter((id) => isTag(id) && !/^(top|bottom)-/.test(id));
  const itemNames = names.filter((id) => !tags.includes(id) && !/^(top|bottom)-/.test(id));
  // The words of a compound are read as words ("highest-latency": a ranking and a metric).
  const compounds = signals.identifiers.filter((id) => NOT_A_NAME.test(id) || COMPOUND_WORD.test(id));
  // A team's name is a topic to look its items up by, not vocabulary ("결제팀 서비스": no payments asked).
  const teams: string[] = [];
  const teamless = text
    .replace(KO_TEAM_WORD, (whole, name: string) => (NOT_A_TEAM.test(name) ? whole : (teams.push(name), ' ')))
    .replace(EN_TEAM_WORD, (whole, name: string) =>
      NOT_A_TEAM.test(name) ? whole : (teams.push(name), ' '),
    );
  const known = knownWords(catalog, mappings, mappingContent ?? EMPTY_KNOWLEDGE);
  const factText = correctTypos(
    [...itemNames, ...tags, ...regions]
      .reduce((rest, id) => rest.split(id).join(' '), teamless)
      .replace(new RegExp(compounds.map((c) => `\\b${c}\\b`).join('|') || '(?!)', 'g'), (c) =>
        c.replace(/-/g, ' '),
      ),
    known,
  );
  const terms = contentTerms(factText);
  // Longest keyword first; a shorter keyword inside a longer one's match is not read again ("예약 취소" is not "예약").
  let unclaimed = factText;
  const matchedMappings: KeywordMapping[] = [];
  const queryWords = factText.match(/[a-z][a-z0-9]+/g) ?? [];
  const queryStems = new Set(queryWords.map(stemWord));
  for (const mapping of mappings) {
    const keyword = keywordText(mapping.keyword);
    if (!containsTerm(factText, keyword) && !wordMatches(keyword, queryWords, queryStems)) continue;
    const sameWords = matchedMappings.some((m) => keywordText(m.keyword) === keyword);
    if (!sameWords && !containsTerm(unclaimed, keyword)) continue;
    matchedMappings.push(mapping);
    if (keyword.includes(' ') || /[\uac00-\ud7a3]/.test(keyword))
      unclaimed = unclaimed.split(keyword).join(' '.repeat(keyword.length));
  }
  const facts = knowledgeFacts(
    factText,
    catalog,
    matchedMappings,
    schemaEnumValues(tools),
    measureColumn(tools),
  );
  // A list of events ("어제 예약 목록", "cancelled booking list") is no list of items: the item lookup's own words
  // ("목록", "list") do not point at it then, unless an item type or a field of the record is named too.
  const lookups = new Set(tools.filter(isItemLookup).map((t) => t.name));
  const lookupWord = (m: KeywordMapping) => m.kind === 'tool' && lookups.has(String(m.value));
  const eventList =
    facts.some((f) => f.table !== null && f.table !== items.table && TYPE_OF_ROW.test(f.field)) &&
    !facts.some((f) => f.field === items.typeColumn) &&
    !matchedMappings.some((m) => lookupWord(m) && m.description === ITEM_RECORD_FIELD);
  if (eventList)
    for (let i = matchedMappings.length - 1; i >= 0; i--)
      if (lookupWord(matchedMappings[i])) matchedMappings.splice(i, 1);
  const identifiers = itemNames.filter((id) => !facts.some((f) => f.value.toLowerCase() === id));
  // "what depends on X" asks for X's dependents: the graph's impact view, not X's own dependencies.
  const viewFact = facts.find((f) => f.field === 'view' && f.value === 'dependency');
  const dependents =
    identifiers.some((id) =>
      new RegExp(
        `(?:depend(?:s|ing)?\\s+on|need|needs|rely\\s+on|relies\\s+on)\\s+(?:the\\s+)?${id}|${id}\\s*(?:에|을|를)\\s*(?:의존|필요로|사용)`,
      ).test(text),
    ) || /depends?\s+on\s+(?:it|them)\b/.test(text);
  // "what does X need", "where does X run", "X 어디서 돌아": X's own dependencies and what it runs on.
  const ownNeeds = identifiers.some((id) =>
    new RegExp(
      `(?:what|which)\\s+(?:\\w+\\s+)?(?:does|do)\\s+${id}\\s+(?:need|require|call|rely on|run on)|where\\s+(?:does|is)\\s+${id}\\s+(?:run|running|hosted|live|lives|living)\\b|${id}\\s*(?:은|는|이|가)?\\s*어디(?:서|에서|에)?\\s*(?:돌|떠|올라|호스팅)`,
    ).test(text),
  );
  if (ownNeeds && !facts.some((f) => f.field === 'view'))
    facts.push({ field: 'view', value: 'dependency', table: null, at: 0 });
  if (viewFact && dependents && !facts.some((f) => f.field === 'view' && f.value === 'impact'))
    facts.unshift({ field: 'view', value: 'impact', table: null, at: viewFact.at });
  else if (dependents) {
    const impact = facts.findIndex((f) => f.field === 'view' && f.value === 'impact');
    if (impact > 0) facts.unshift(...facts.splice(impact, 1));
  }

  const idf = inverseDocumentFrequency(tools);
  // When the tools read more than one source, a value named in the question that only one source's catalog
  // lists says which source's data the question is about: it counts for that source's tools as a keyword of
  // their own would (with one source, every value is that source's and says nothing).
  const severalSources = new Set(tools.map((tool) => catalog.sourceOf(tool.name))).size > 1;
  const hasTerm = termMatcher(factText, terms);
  const strong: Record<string, number> = {};
  const weak: Record<string, number> = {};
  const features: Record<string, number> = {};
  for (const tool of tools) {
    let description = 0;
    for (const term of toolTerms(tool)) if (hasTerm(term)) description += idf.get(term) ?? 0;
    for (const term of schemaTerms(tool))
      if (hasTerm(term)) description += SCHEMA_WEIGHT * (idf.get(term) ?? 0);
    const mapped = matchedMappings.some(
      (m) => m.kind === 'tool' && m.value === tool.name && m.description !== HINT_KEYWORD,
    );
    let column = 0;
    let sourced = 0;
    weak[tool.name] = 0;
    // The tool's own source: its catalog and the values that catalog lists.
    const source = catalog.sourceOf(tool.name);
    const toolCatalog = catalog.forTool(tool.name);
    const toolFacts = facts.filter((f) => factFitsSource(f, source));
    for (const property of schemaProperties(tool.input_schema)) {
      if (property.catalogColumn) {
        const [table, name] = property.catalogColumn.split('.');
        const filled =
          name === 'name'
            ? []
            : toolFacts.filter((f) => f.field === name && (f.table === null || f.table === table));
        if (filled.length) column += 1;
        if (severalSources && filled.some((f) => f.source === source)) sourced = 1;
      } else if (property.enumValues && property.name !== 'order') {
        if (facts.some((f) => f.field === property.name && property.enumValues!.includes(f.value)))
          column += 1;
      } else if (property.catalogTable) {
        weak[tool.name] += toolFacts.filter((f) =>
          f.table
            ? f.table === property.catalogTable
            : Boolean(toolCatalog.column(property.catalogTable!, f.field)),
        ).length;
      }
    }
    const hinted = matchedMappings.some(
      (m) => m.kind === 'tool' && m.value === tool.name && m.description === HINT_KEYWORD,
    );
    const ownWord = mapped || hinted || sourced ? 3 : 0;
    strong[tool.name] = Math.round((description + ownWord + column * 3) * 100) / 100;
    if (hinted) features[`hinted:${tool.name}`] = 1;
    features[`desc:${tool.name}`] = Math.min(description, 4) / 4;
    if (mapped) features[`mapped:${tool.name}`] = 1;
    if (column) features[`column:${tool.name}`] = Math.min(column, 2);
  }
  // How-to phrasing alone ("how do I reverse a string") is not about the operated systems.
  const howTo = new Set(
    mappings.filter((m) => m.kind === 'other' && m.value === 'how_to').map((m) => keywordText(m.keyword)),
  );
  if (matchedMappings.some((m) => howTo.has(keywordText(m.keyword)))) features.howTo = 1;
  // General knowledge, a translation or a piece of writing ("what does idempotent mean", "영어로 뭐라고 해").
  // "What does X mean?" ends on a word the mappings also read as the average: the sentence shape decides.
  if (
    matchedMappings.some((m) => m.kind === 'other' && m.value === 'general') ||
    /\bwhat (?:does|do)\b.*\bmean\s*\??$/.test(text) ||
    // A piece of writing is a tool's job when the tenant said so: a keyword mapped or hinted for a tool
    // ("draft" hinted for the tool reading the user's blog posts, "write a blog post" for the one publishing).
    (WRITING.test(text) &&
      !tools.some((tool) => features[`hinted:${tool.name}`] || features[`mapped:${tool.name}`])) ||
    GENERAL_KNOWLEDGE.test(text)
  )
    features.general = 1;
  if (identifiers.length) features.item = 1;
  if (identifiers.length > 1) features.items = 1;
  if (tags.length) features.tag = 1;
  if (facts.some((f) => items.filterColumns.has(f.field))) features.itemFilter = 1;
  if (signals.timeRange) features.time = 1;
  if (signals.aggregation || matchedMappings.some((m) => m.kind === 'aggregation')) features.aggregate = 1;
  if (signals.limit !== null || signals.superlative) features.ranked = 1;

  const words = factText.match(/[a-z][a-z0-9]*|[\uac00-\ud7a3]+/g) ?? [];
  const itemTopics: string[] = [...teams];
  const textTopics: string[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const [word, next, after] = [words[i], words[i + 1], words[i + 2] ?? ''];
    if (!/^[a-z]{3,}$/.test(word) || items.enumValues.has(word) || ['the', 'all'].includes(word)) continue;
    if (RELATED.test(next) && namesItems(items, after)) itemTopics.push(word);
    else if (!known.has(word) && namesItems(items, next)) itemTopics.push(word);
    else if (RELATED.test(next) && !namesItems(items, after)) textTopics.push(word);
  }
  // Korean: a word joined to an item type by 쪽/팀/관련 ("주문 쪽 서비스", "배송팀 자산"): items to look up
  // by keyword (the items' descriptions are Korean too).
  for (let i = 0; i + 1 < words.length; i++) {
    const [word, next, after] = [words[i], words[i + 1], words[i + 2] ?? ''];
    if (!/^[\uac00-\ud7a3]{2,}$/.test(word)) continue;
    if (
      (KO_TOPIC_LINK.test(next) && namesItems(items, after)) ||
      (KO_TEAM.test(word) && namesItems(items, next))
    )
      itemTopics.push(word);
  }
  if (itemTopics.length) features.topic = 1;
  if (textTopics.length) features.textTopic = 1;
  return {
    text,
    factText,
    signals,
    matchedMappings,
    facts,
    identifiers,
    shaped,
    tags,
    regions,
    itemTopics: [...new Set(itemTopics)],
    textTopics: [...new Set(textTopics)],
    strong,
    weak,
    eventList,
    items,
    inDomain:
      mappings.length === 0 ||
      facts.length > 0 ||
      identifiers.length > 0 ||
      tags.length > 0 ||
      regions.length > 0 ||
      itemTopics.length > 0 ||
      matchedMappings.some(
        (m) => (m.kind === 'tool' && !howTo.has(keywordText(m.keyword))) || m.kind === 'metric',
      ) ||
      // Words of a tool's own description or hints (a tenant's tools need no mappings to be asked about).
      tools.some((tool) => (features[`desc:${tool.name}`] ?? 0) >= DESCRIBED),
    features,
  };
}
