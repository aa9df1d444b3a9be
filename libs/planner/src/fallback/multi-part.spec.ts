import type { ToolDefinition } from '@app/tools';
import { CatalogIndex } from '../knowledge/catalog-index';
import { FallbackPlanner, splitClauses } from './fallback-planner';
import { lookupsFirst } from './lookup-first';
import { hintKeywordMappings } from './planning-classifier';
import { analyseQuestion } from './question-analysis';
import { answerParts, applyRequestedActions, clauseRequest, readVerbsOf } from './requested-action';

/**
 * Multi-part questions and description-only tools, on the tools of an invented bicycle rental shop: what the
 * mechanisms read is the tools' published data (names, descriptions, schemas) and language mechanics alone.
 */
function tool(
  name: string,
  description: string,
  sideEffects: boolean,
  properties: Record<string, unknown> = {},
  required: string[] = [],
): ToolDefinition {
  return {
    name,
    description,
    input_schema: { type: 'object', properties, required },
    output_schema: null,
    has_side_effects: sideEffects,
  } as unknown as ToolDefinition;
}

const CARD = { type: 'string', pattern: '^BK\\d{6}$', description: '회원번호, e.g. BK123456' };
const riderLookup = tool('rider_lookup', 'Find a rider by name, phone or member card.', false, {
  card_no: CARD,
  name: { type: 'string' },
});
const rentalBook = tool(
  'rental_book',
  'Book a bike for a rider. Needs the member card: look the rider up first if you only have a name.',
  true,
  { card_no: CARD, bike_class: { type: 'string', enum: ['city', 'mountain_bike', 'tandem'] } },
  ['card_no'],
);
const fleetStatus = tool(
  'fleet_track',
  '자전거 위치와 상태 조회. Where each bike is, and whether it is rented out.',
  false,
  {
    shift: { type: 'string', enum: ['front_desk', 'workshop'] },
  },
);
const repairOrder = tool('repair_order', 'Order a repair of a bike at the workshop.', true, {
  bike_no: { type: 'string', pattern: '^B-\\d{4}$' },
});
const TOOLS = [riderLookup, rentalBook, fleetStatus, repairOrder];
const NOW = new Date('2026-11-22T09:00:00Z');

describe('splitClauses (Korean connectives)', () => {
  it('splits at -고 after a verb stem such as 드리 and keeps a -면 condition as its own part', () => {
    expect(splitClauses('투어용으로 바꿔드리고 수리요청도 넣어주세요')).toEqual([
      '투어용으로 바꿔드리',
      '수리요청도 넣어주세요',
    ]);
    expect(splitClauses('탠덤 내일 비어있으면 BK123456 손님 예약해줘')).toEqual([
      '탠덤 내일 비어있으면',
      'BK123456 손님 예약해줘',
    ]);
  });
});

describe('clauseRequest (conditions and read verbs)', () => {
  it('reads the request after an English condition', () => {
    expect([...clauseRequest("if it's low order 50").write]).toEqual(['order']);
    expect(clauseRequest("if it's low").write.size).toBe(0);
  });

  it('reads a Korean condition as asking what is so', () => {
    expect(clauseRequest('재고 모자라면').read).toBe(true);
  });

  it('reads the last word of a read-only tool name opening a part as a request to be shown something', () => {
    const verbs = readVerbsOf(TOOLS);
    expect(verbs.has('track')).toBe(true);
    expect(clauseRequest('track B-1234', verbs).read).toBe(true);
    expect(clauseRequest('track B-1234').read).toBe(false);
  });
});

describe('applyRequestedActions (a part judged on its own words)', () => {
  it('adds the performer of an action requested in one part on that part score', () => {
    const clauses = ['find rider Kim', 'book him a tandem'];
    const chosen = applyRequestedActions(
      clauses,
      TOOLS,
      [riderLookup],
      { rider_lookup: 0.9, rental_book: 0.05 },
      new Set(),
      [{ rider_lookup: 0.9 }, { rental_book: 0.4 }],
    );
    expect(chosen.map((t) => t.name)).toEqual(['rider_lookup', 'rental_book']);
  });
});

describe('lookupsFirst', () => {
  it('looks the record up first when a chosen tool needs an identifier the question does not give', () => {
    expect(lookupsFirst(TOOLS, [rentalBook], []).map((t) => t.name)).toEqual(['rider_lookup', 'rental_book']);
  });

  it('adds nothing when the question gives the identifier', () => {
    expect(lookupsFirst(TOOLS, [rentalBook], ['bk123456']).map((t) => t.name)).toEqual(['rental_book']);
  });

  it('adds nothing when two tools are as likely to be the lookup', () => {
    const twin = tool('rider_history', 'Past rentals of a rider by member card.', false, {
      card_no: CARD,
      year: { type: 'integer' },
    });
    expect(lookupsFirst([...TOOLS, twin], [rentalBook], []).map((t) => t.name)).toEqual(['rental_book']);
  });
});

describe('answerParts', () => {
  const parts = ['is a tandem free tomorrow?', 'if so book BK123456'];
  it('gives a part asking to be shown something the reader that is best on its own words, beside an action', () => {
    const chosen = answerParts(
      parts,
      TOOLS,
      [rentalBook],
      [{ fleet_track: 0.4, rider_lookup: 0.1 }, {}],
      [new Set(), new Set(['rider_lookup', 'rental_book'])],
    );
    expect(chosen.map((t) => t.name)).toEqual(['rental_book', 'fleet_track']);
  });

  it('adds no reader when two are as likely', () => {
    const chosen = answerParts(
      parts,
      TOOLS,
      [rentalBook],
      [{ fleet_track: 0.4, rider_lookup: 0.4 }, {}],
      [new Set(), new Set()],
    );
    expect(chosen.map((t) => t.name)).toEqual(['rental_book']);
  });

  it('gives a part asking about a value in a reader input shape the reader taking it', () => {
    const chosen = answerParts(
      ['where is BK123456 now?', 'show the workshop queue'],
      TOOLS,
      [fleetStatus],
      [{}, { fleet_track: 0.9 }],
      [new Set(['rider_lookup', 'rental_book']), new Set()],
    );
    expect(chosen.map((t) => t.name)).toEqual(['fleet_track', 'rider_lookup']);
  });
});

describe('description and schema evidence', () => {
  const strong = (query: string) => analyseQuestion(query, TOOLS, new CatalogIndex(null), null, NOW).strong;

  it('counts the words of a tool enum values, at half a description word', () => {
    // "front desk" is only in fleet_track's enum value front_desk; then in its description instead.
    const described = tool('fleet_track', `${fleetStatus.description} Front desk.`, false, {});
    const fromDescription = analyseQuestion(
      'who is on the front desk',
      [riderLookup, rentalBook, described, repairOrder],
      new CatalogIndex(null),
      null,
      NOW,
    ).strong['fleet_track'];
    expect(strong('who is on the front desk')['fleet_track']).toBeCloseTo(fromDescription / 2, 1);
  });

  it('reads a Korean description word without its ending and English words by stem', () => {
    expect(strong('자전거 위치 알려줘')['fleet_track']).toBeGreaterThan(0);
    // "booked" for the description's "book", "repairs" for "repair".
    expect(strong('was it booked?')['rental_book']).toBeGreaterThan(0);
  });

  it('reads a piece of writing or a translation as general knowledge without any mappings', () => {
    const general = (query: string) =>
      analyseQuestion(query, TOOLS, new CatalogIndex(null), null, NOW).features.general ?? 0;
    expect(general('draft an email to the rider apologising for the flat tyre')).toBe(1);
    expect(general('대여 안내 문구 좀 써줘')).toBe(1);
    expect(general("what's the difference between a city bike and a hybrid")).toBe(1);
    expect(general('book a tandem for BK123456')).toBe(0);
  });

  it('leaves a piece of writing to a tool the tenant hinted for it', () => {
    const notes = {
      ...tool('ride_notes', 'Notes of past rides, to follow the rider style.', false),
      planning_hints: { keywords: { en: ['draft'] } },
    } as ToolDefinition;
    const mappings = { mappings: hintKeywordMappings([notes]) };
    const features = analyseQuestion(
      'draft a note in my style',
      [notes],
      new CatalogIndex(null),
      mappings,
      NOW,
    ).features;
    expect(features.general ?? 0).toBe(0);
  });
});

describe('FallbackPlanner (multi-part)', () => {
  it('plans a lookup before the booking that needs its identifier, reader first', () => {
    const planner = new FallbackPlanner(null, { trainSynchronously: true });
    const plan = planner.plan({
      query: 'find rider Minji Park and book her a tandem',
      tools: TOOLS,
      catalog: new CatalogIndex(null),
      mappings: null,
      now: NOW,
      maxLimit: 50,
    }).plan;
    expect(plan.steps.map((s) => s.tool_type)).toEqual(['rider_lookup', 'rental_book']);
  });
});
