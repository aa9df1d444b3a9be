import type { MappingContent } from '@app/asset-registry';
import { stripHangulSuffix, tokenize } from '@app/documents';
import type { ToolDefinition } from '@app/tools';
import type { CatalogIndex } from '../knowledge/catalog-index';
import { stemEnglish } from '../knowledge/text-match.util';

/**
 * The tenant's document store as the planner asks it: a few passages that best match a question (a cheap
 * keyword search, tenant-scoped). Whether a question's words occur in a passage of its documents, and in particular
 * words the structured knowledge (tools, catalog, mappings) does not explain, is a signal for the document
 * search tool that needs no phrase list: it reads what the tenant actually wrote down.
 */
export abstract class DocumentMatcher {
  /** Up to `limit` passage texts for the question; [] when nothing matches; throws when the store fails. */
  abstract passages(tenantId: string, query: string, limit: number): Promise<string[]>;
}

/** How many passages the planner asks for. */
export const DOCUMENT_MATCH_PASSAGES = 3;

/** Function words that say nothing about the topic (both languages); a term must be a content word. */
const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at by for with from into over per is are was were be been being do does did ' +
    'have has had it its this that these those there what which who whom whose how when where why can could ' +
    'should would will shall may might must i me my we our you your he she they them their any all some each ' +
    'not no yes if then than so about up down out off pls please tell show give find get let me us need want ' +
    'know anything something everything much many more most also just only still ever again one two three right now ' +
    'look check see list pull chart display fetch lately recently tonight yesterday today'
  ).split(' '),
);
const KOREAN_STOPWORDS = new Set(
  (
    '어떻게 어떡 언제 무엇 뭐야 뭐지 뭐임 뭔가 어디 어디에 누가 몇시 얼마 알려줘 알려 보여줘 보여 해줘 있어 있나 있는 하는 하면 해야 돼 되나 되는 그리고 그냥 좀 이거 그거 저거 우리 ' +
    '전체 전부 모두 모든 각각 하나 하나만 중인 중에 중 거 것 것들 걔네 그것 이것 다음 지금 현재 기준 기준으로 단위 정도 대략 제일 가장 이상 이하 최근 해당 같은 다른 때 동안 ' +
    // Request verbs and time words: every question has them, they say nothing about a document's topic.
    '확인 조회 체크 찾아 찾아줘 봐줘 봐 뽑아 골라 요새 요즘 그저께 그제 어제 오늘 아까 방금 무슨 왜 저래 이래'
  ).split(' '),
);

/** Forms of the auxiliary verbs 있다, 없다, 하다, 되다 ("있었는지", "하는지", "됐나"). */
const AUXILIARY_VERB = /^(?:있|없|했|하|해|되|됐|돼)[\uac00-\ud7a3]*$/;
/** A request verb with its ending ("확인해줘", "조회해", "체크 좀"). */
const REQUEST_VERB = /^(?:확인|조회|체크|검색|알려|보여|찾아|봐)[\uac00-\ud7a3]*$/;
/** Item names ("eu-order-api-01"): which item is named says nothing about the documents. */
const ITEM_NAME = /[a-z][a-z0-9]*(?:-[a-z0-9]+)+/g;

/**
 * Content terms of a text: English words stemmed (a light stemmer: plurals, -ing, -ed), Korean words as
 * their stem (particles and endings removed, as the document store does). Function words, item names,
 * numbers and one-letter tokens are dropped.
 */
export function documentTerms(text: string): Set<string> {
  const terms = new Set<string>();
  const normalized = text.normalize('NFKC').toLowerCase().replace(ITEM_NAME, ' ');
  for (const token of tokenize(normalized)) {
    if (token.hangul) {
      if (KOREAN_STOPWORDS.has(token.text)) continue;
      // The plural "들" is an ending too ("객실들" is "객실").
      const stem = stripHangulSuffix(token.text).replace(/(?<=[\uac00-\ud7a3])들$/, '');
      // Forms of 있다/없다/하다/되다 ("있었는지", "하는지", "확인해줘") and stop words with an ending ("최근에").
      if (KOREAN_STOPWORDS.has(stem) || AUXILIARY_VERB.test(stem) || REQUEST_VERB.test(stem)) continue;
      if (stem.length >= 2) terms.add(`k:${stem}`);
    } else {
      const word = token.text;
      if (word.length < 2 || /^\d+$/.test(word) || STOPWORDS.has(word)) continue;
      terms.add(`e:${englishStem(word)}`);
    }
  }
  return terms;
}

/** A passage as the matcher reads it: its English stems and its Korean text (stems match as substrings). */
interface ReadPassage {
  english: Set<string>;
  korean: string;
}

function readPassage(text: string): ReadPassage {
  const english = new Set<string>();
  for (const term of documentTerms(text)) if (term.startsWith('e:')) english.add(term);
  return { english, korean: text.normalize('NFKC').toLowerCase() };
}

/**
 * Whether a question term occurs in a passage. A Korean stem matches as a substring, also without its
 * last syllable when that leaves two ("롤백할" in a passage saying "롤백"), since endings vary.
 */
function passageHas(passage: ReadPassage, term: string): boolean {
  if (term.startsWith('e:')) return passage.english.has(term);
  const stem = term.slice(2);
  return passage.korean.includes(stem) || (stem.length >= 3 && passage.korean.includes(stem.slice(0, -1)));
}

function englishStem(word: string): string {
  let stem = stemEnglish(word);
  if (stem.length > 5 && stem.endsWith('ing')) stem = stem.slice(0, -3);
  else if (stem.length > 4 && stem.endsWith('ed')) stem = stem.slice(0, -2);
  return stem;
}

/**
 * The words the tenant's structured knowledge explains: tool names and descriptions, input schema
 * property names and enum values, catalog tables, columns and values, mapping keywords and values. A
 * passage matching only these says little (every document mentions the item nouns); a passage matching other words of
 * the question ("VACUUM", "오토스케일링", "pool size") points at the documents.
 */
export function knowledgeVocabulary(
  tools: ToolDefinition[],
  catalog: CatalogIndex,
  mappings: MappingContent | null,
): Set<string> {
  const texts: string[] = [];
  // The document tools (a required free-text `query`, nothing from the catalog), the mappings pointing at
  // them and the procedure words (how_to) are not structured knowledge: their words are what documents are about.
  const documentTools = new Set(tools.filter(isDocumentTool).map((t) => t.name));
  for (const tool of tools.filter((t) => !documentTools.has(t.name))) {
    texts.push(tool.name.replace(/_/g, ' '), tool.description);
    collectSchemaWords(tool.input_schema, texts);
  }
  texts.push(JSON.stringify(catalog.content ?? {}).replace(/[_{}[\]":,]/g, ' '));
  for (const mapping of mappings?.mappings ?? [])
    if (mapping.value !== 'how_to' && !(mapping.kind === 'tool' && documentTools.has(String(mapping.value))))
      texts.push(mapping.keyword, String(mapping.value ?? '').replace(/_/g, ' '));
  const vocabulary = new Set<string>();
  for (const text of texts) for (const term of documentTerms(text)) vocabulary.add(term);
  return vocabulary;
}

/** A tool that searches text: a required string `query` and no input drawn from the catalog. */
export function isDocumentTool(tool: ToolDefinition): boolean {
  const schema = tool.input_schema as { properties?: Record<string, { type?: string }>; required?: string[] };
  return (
    schema.properties?.query?.type === 'string' &&
    Boolean(schema.required?.includes('query')) &&
    !JSON.stringify(schema).includes('x-catalog')
  );
}

function collectSchemaWords(schema: unknown, out: string[]): void {
  if (!schema || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) collectSchemaWords(item, out);
    return;
  }
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'properties' && value && typeof value === 'object')
      out.push(...Object.keys(value).map((k) => k.replace(/_/g, ' ')));
    if (key === 'enum' && Array.isArray(value))
      out.push(value.map((v) => String(v).replace(/_/g, ' ')).join(' '));
    collectSchemaWords(value, out);
  }
}

export interface DocumentEvidence {
  /** Share of the question's content terms found in the best passage (0..1). */
  coverage: number;
  /** Question terms found in the best passage that the structured knowledge does not explain. */
  unexplained: number;
  /** Question terms found in the best passage that the structured knowledge explains. */
  explained: number;
}

/** What the passages say about a question (or a part of one): the best passage by covered terms. */
export function documentEvidence(
  query: string,
  passages: string[],
  vocabulary: Set<string>,
): DocumentEvidence {
  const terms = documentTerms(query);
  let best: DocumentEvidence = { coverage: 0, unexplained: 0, explained: 0 };
  if (!terms.size) return best;
  for (const passage of passages) {
    const read = readPassage(passage);
    let unexplained = 0;
    let explained = 0;
    for (const term of terms)
      if (passageHas(read, term)) {
        if (vocabulary.has(term)) explained++;
        else unexplained++;
      }
    const coverage = (unexplained + explained) / terms.size;
    if (unexplained > best.unexplained || (unexplained === best.unexplained && coverage > best.coverage))
      best = { coverage, unexplained, explained };
  }
  return best;
}

/**
 * Passages ranked by the same term overlap, from texts held in memory (the evaluation and tests, with the
 * demo documents the labelled questions were written against). A tenant's store is asked through its
 * keyword search instead (DocumentSearchMatcher).
 */
export class InMemoryDocumentMatcher extends DocumentMatcher {
  private readonly indexed: Array<{ text: string; read: ReadPassage }>;

  constructor(texts: string[]) {
    super();
    this.indexed = texts.map((text) => ({ text, read: readPassage(text) }));
  }

  passagesFor(query: string, limit: number = DOCUMENT_MATCH_PASSAGES): string[] {
    const terms = [...documentTerms(query)];
    return this.indexed
      .map((doc) => ({ doc, hits: terms.filter((t) => passageHas(doc.read, t)).length }))
      .filter((r) => r.hits > 0)
      .sort((a, b) => b.hits - a.hits)
      .slice(0, limit)
      .map((r) => r.doc.text);
  }

  passages(_tenantId: string, query: string, limit: number): Promise<string[]> {
    return Promise.resolve(this.passagesFor(query, limit));
  }
}
