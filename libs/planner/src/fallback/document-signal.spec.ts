import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { CatalogIndex } from '../knowledge/catalog-index';
import {
  documentEvidence,
  documentTerms,
  InMemoryDocumentMatcher,
  isDocumentTool,
  knowledgeVocabulary,
} from './document-signal';
import { FallbackPlanner, splitClauses } from './fallback-planner';

const tools = [...BUILTIN_TOOL_DEFINITIONS];
const catalog = new CatalogIndex(OPS_CATALOG);
const vocabulary = knowledgeVocabulary(tools, catalog, OPS_KEYWORD_MAPPINGS);
// A runbook about something no tool, catalog value or mapping keyword mentions.
const KEYTABS = [
  '# Kerberos keytab rotation\nRotate the keytabs on the bastion hosts every 90 days; open a change ticket first.',
  '# 케르베로스 키탭 교체\n배스천 호스트의 키탭은 90일마다 교체한다. 먼저 변경 티켓을 연다.',
];
const matcher = new InMemoryDocumentMatcher(KEYTABS);
const plan = (query: string, documents: string[] | null) =>
  new FallbackPlanner(null, { trainSynchronously: true }).plan({
    query,
    tools,
    catalog,
    mappings: OPS_KEYWORD_MAPPINGS,
    now: new Date('2026-11-22T09:00:00Z'),
    maxLimit: 100,
    documents,
  });
const chosen = (query: string, documents: string[] | null) =>
  plan(query, documents).plan.steps.map((s) => s.tool_type);

describe('document signal', () => {
  it('drops auxiliary and request verbs and time words: every question has them', () => {
    expect([...documentTerms('어제 배포 있었는지 확인해줘')]).toEqual(['k:배포']);
    expect([...documentTerms('check whether anything was deployed yesterday')]).toEqual([
      'e:whether',
      'e:deploy',
    ]);
  });

  it('reads Korean stems without particles and English stems, dropping function words and item names', () => {
    expect([...documentTerms('키탭은 언제 교체 주기가')]).toEqual(
      expect.arrayContaining(['k:키탭', 'k:교체', 'k:주기']),
    );
    expect([...documentTerms('how often do we rotate the keytabs on prod-order-api-01')]).toEqual([
      'e:often',
      'e:rotate',
      'e:keytab',
    ]);
  });

  it('counts the words the structured knowledge does not explain, and only those found in a passage', () => {
    expect(tools.filter(isDocumentTool).map((t) => t.name)).toEqual(['document_search']);
    const keytabs = documentEvidence(
      'rotate keytabs on the bastion hosts?',
      matcher.passagesFor('keytabs'),
      vocabulary,
    );
    expect(keytabs.unexplained).toBeGreaterThanOrEqual(3);
    // cpu and servers are catalog and mapping words: a passage mentioning them says little.
    const cpu = documentEvidence(
      'cpu of the prod servers',
      ['High CPU on prod servers: check the cpu_usage'],
      vocabulary,
    );
    expect(cpu.unexplained).toBe(0);
    expect(cpu.explained).toBeGreaterThan(0);
    expect(documentEvidence('rotate keytabs', [], vocabulary)).toEqual({
      coverage: 0,
      unexplained: 0,
      explained: 0,
    });
  });

  it('routes a question about what the documents say to document_search, in both languages', () => {
    const english = 'how often do we rotate the bastion keytabs?';
    expect(chosen(english, matcher.passagesFor(english))).toEqual(['document_search']);
    const korean = '배스천 키탭 교체 주기가 어떻게 돼?';
    expect(chosen(korean, matcher.passagesFor(korean))).toEqual(['document_search']);
    // The same question when the store has nothing on it: no document passage speaks for the documents.
    expect(chosen(english, [])).not.toEqual(['document_search']);
  });

  it('leaves questions about the operated systems to their tools even when a passage shares words', () => {
    const query = 'top 5 prod servers by cpu last week';
    expect(
      chosen(query, ['High CPU runbook: when cpu_usage on prod servers stays above 90% for a week']),
    ).toEqual(['metric_query']);
  });
});

describe('splitClauses', () => {
  it('splits at conjunctions in either language, also the less common ones', () => {
    expect(splitClauses('list the prod databases as well as the backup runbook')).toEqual([
      'list the prod databases',
      'the backup runbook',
    ]);
    expect(splitClauses('cpu of prod-order-api followed by its dependencies')).toHaveLength(2);
    expect(splitClauses('prod DB 목록 그다음 백업 런북')).toEqual(['prod DB 목록', '백업 런북']);
    expect(splitClauses('에러율 보면서 배포 이력도')).toEqual(['에러율 보', '배포 이력도']);
  });
});
