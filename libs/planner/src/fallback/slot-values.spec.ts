import { schemaProperties } from '../plan/schema-introspection.util';
import {
  booleanFromText,
  distinguishingHeads,
  enumContexts,
  enumFromText,
  enumTerms,
  impliedEnums,
  loanKey,
  numberFromText,
  patternFromText,
  romanize,
  shapedInputs,
  shapeOwners,
  sharedEnumValues,
} from './slot-values';

// A clinic's booking tool, as its admin might write it: nothing of the planner's own vocabulary.
const schema = {
  type: 'object',
  properties: {
    clinic: {
      type: 'string',
      enum: ['bundang', 'ilsan', 'suwon'],
      description: 'Clinic: bundang (Seongnam), ilsan (Goyang), suwon',
    },
    department: {
      type: 'string',
      enum: ['dermatology', 'pediatrics', 'dental'],
      description: '진료과 (피부과 / 소아과 / 치과)',
    },
    slot: {
      type: 'string',
      enum: ['am', 'pm'],
      description: 'am=오전 진료, pm=오후 진료',
    },
    patient_no: { type: 'string', description: 'Patient number, e.g. PT-20391' },
    visit_time: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
    room: { type: 'string', pattern: '^[0-9]{3}$', description: '진료실 호수' },
    days: { type: 'integer', minimum: 1, maximum: 14, description: 'Number of days' },
    floor: { type: 'integer', minimum: 1, maximum: 9, description: '층' },
  },
};
const property = (name: string) => schemaProperties(schema).find((p) => p.name === name)!;

describe('slot values read from a tool schema', () => {
  it('romanises Korean as ASCII names are spelt', () => {
    expect(romanize('분당')).toBe('bundang');
    expect(romanize('일산')).toBe('ilsan');
    expect(romanize('수원')).toBe('suwon');
  });

  it('reads an enum value by itself, by its description label, by its Korean spelling and by position', () => {
    expect(enumFromText('Is the Suwon clinic open?', property('clinic'))).toBe('suwon');
    expect(enumFromText('anything in Goyang tomorrow', property('clinic'))).toBe('ilsan');
    expect(enumFromText('분당점 예약 현황', property('clinic'))).toBe('bundang');
    expect(enumFromText('소아과 자리 있어요?', property('department'))).toBe('pediatrics');
    expect(enumFromText('오후 진료 가능한가요', property('slot'))).toBe('pm');
    expect(enumTerms(property('department')).map((t) => t.term)).toContain('치과');
  });

  it('names no value when the question names none or two', () => {
    expect(enumFromText('what time is it', property('clinic'))).toBeNull();
    expect(enumFromText('bundang or ilsan?', property('clinic'))).toBeNull();
  });

  it("reads strings shaped like the property's pattern or its description's example", () => {
    expect(patternFromText('move PT-88123 to friday', property('patient_no'))).toBe('PT-88123');
    expect(patternFromText('오후 3시 반으로 바꿔줘', property('visit_time'))).toBe('15:30');
    expect(patternFromText('at 9am please', property('visit_time'))).toBe('09:00');
    // Digits alone need the property's own word beside them: 204호 is a room, 2026 is not.
    expect(patternFromText('204호 비었나', property('room'))).toBe('204');
    expect(patternFromText('2026년 실적', property('room'))).toBeNull();
  });

  it('reads a number only with the unit the property counts, within its bounds', () => {
    expect(numberFromText('3일 동안', property('days'))).toBe(3);
    expect(numberFromText('for 5 days', property('days'))).toBe(5);
    expect(numberFromText('for 40 days', property('days'))).toBeNull();
    expect(numberFromText('2층 진료실', property('floor'))).toBe(2);
    expect(numberFromText('2층 진료실', property('days'))).toBeNull();
  });

  it('finds the values more than one tool takes', () => {
    const other = { type: 'object', properties: { clinic: schema.properties.clinic } };
    const shared = sharedEnumValues([schemaProperties(schema), schemaProperties(other)]);
    expect(shared.has('bundang')).toBe(true);
    expect(shared.has('dermatology')).toBe(false);
  });
});

describe('a pattern of letter classes', () => {
  const [shelf, voucher] = schemaProperties({
    type: 'object',
    properties: {
      shelf: { type: 'string', pattern: '^\\d{2}[가-힣]\\d{3}$' },
      voucher: { type: 'string', pattern: '^[A-Z0-9]{6}$' },
    },
  });

  it('is as distinctive as a literal letter: the value is read without a word naming it', () => {
    expect(patternFromText('12가345 자리에 있는 책', shelf)).toBe('12가345');
  });

  it('takes a code with a digit as a shaped value, not a word that fits it', () => {
    const shapes = shapedInputs([{ name: 'redeem', properties: [voucher] }]);
    expect(shapeOwners('AB12CD', shapes)).toEqual([
      { tool: 'redeem', property: 'voucher', regex: expect.any(RegExp) },
    ]);
    expect(shapeOwners('BRANCH', shapes)).toEqual([]);
  });
});

describe('a flag the question raises', () => {
  const [overdue, express, returned] = schemaProperties({
    type: 'object',
    properties: {
      overdue_only: { type: 'boolean' },
      express: { type: 'boolean', description: '당일배송 요청' },
      returned: { type: 'boolean', description: '반납 처리 여부' },
    },
  });

  it('is set by a word of its name or a long word of its description, unset when negated', () => {
    expect(booleanFromText('any overdue loans at central?', overdue)).toBe(true);
    expect(booleanFromText('당일배송으로 보내줘', express)).toBe(true);
    expect(booleanFromText('loans that have not been returned yet', returned)).toBe(false);
    expect(booleanFromText('show all loans', overdue)).toBeNull();
  });
});

describe('a family of compound enum values', () => {
  const [depot] = schemaProperties({
    type: 'object',
    properties: { depot: { type: 'string', enum: ['daejeon_depot', 'gwangju_depot', 'ulsan_yard'] } },
  });

  it('names a value by the part that tells it from the others, in English or Korean', () => {
    expect([...distinguishingHeads(depot.enumValues!)]).toEqual([
      ['daejeon', 'daejeon_depot'],
      ['gwangju', 'gwangju_depot'],
    ]);
    expect(enumFromText('trucks parked at gwangju today', depot)).toBe('gwangju_depot');
    expect(enumFromText('대전점 트럭 몇 대야', depot)).toBe('daejeon_depot');
    // A value alone in its family is named by its whole name only.
    expect(enumFromText('trucks at ulsan', depot)).toBeNull();
  });
});

describe('labels written before their value', () => {
  const [size] = schemaProperties({
    type: 'object',
    properties: {
      size: {
        type: 'string',
        enum: ['small', 'medium', 'large'],
        description: '소형=small, 중간/보통=medium, 대형/L=large',
      },
    },
  });

  it('reads "label=value" as labels of that value', () => {
    expect(enumFromText('대형 박스로 주세요', size)).toBe('large');
    expect(enumFromText('보통 크기면 돼요', size)).toBe('medium');
  });
});

// A gym chain's tools, invented: one input explains the branch codes, the others only list them.
const GYM = [
  {
    name: 'class_search',
    description: 'Find group classes. Pass (none / basic 기본권 / premium 프리미엄권) filters by membership.',
    properties: schemaProperties({
      type: 'object',
      properties: {
        branch: {
          type: 'string',
          enum: ['MP', 'IS', 'SJ'],
          description: '지점: MP 마포, IS 일산, SJ Sejong',
        },
        pass: { type: 'string', enum: ['none', 'basic', 'premium'] },
        issue: { type: 'string', enum: ['noise', 'broken', 'dirty'], description: '소음 / 고장 / 청소' },
      },
    }),
  },
  {
    name: 'locker_request',
    description: 'Request a locker. 사물함 신청.',
    properties: schemaProperties({
      type: 'object',
      properties: {
        branch: { type: 'string', enum: ['MP', 'IS', 'SJ'], description: '받을 지점' },
        action: { type: 'string', enum: ['assign', 'extend', 'release'] },
        months: { type: 'integer', description: 'For extend: how many months' },
        slot: { type: 'string', enum: ['AM', 'PM', 'EVENING'] },
        size: { type: 'string', enum: ['S', 'M', 'L'] },
        area: { type: 'string', enum: ['by_window', 'by_door', 'f_and_b', 'no_show'] },
        kind: { type: 'string', enum: ['refunded', 'partial'] },
      },
    }),
  },
];
const gym = (tool: number, name: string) => GYM[tool].properties.find((p) => p.name === name)!;

describe('enum values read with what the rest of the tenant wrote', () => {
  const contexts = enumContexts(GYM);
  const filling = (tool: number, name: string) => ({
    descriptions: [],
    prose: [],
    ...contexts.get(`${GYM[tool].name}/${name}`),
    broad: true,
  });

  it("reads a label another tool's input with the same values gives", () => {
    expect(enumFromText('마포 사물함 하나 주세요', gym(1, 'branch'))).toBeNull();
    expect(enumFromText('마포 사물함 하나 주세요', gym(1, 'branch'), filling(1, 'branch'))).toBe('MP');
    expect(enumFromText('a locker at Sejong', gym(1, 'branch'), filling(1, 'branch'))).toBe('SJ');
  });

  it("reads a label the tool's description gives right after a value", () => {
    expect(enumFromText('프리미엄권 회원 수업', gym(0, 'pass'), filling(0, 'pass'))).toBe('premium');
  });

  it('reads a list of one-word labels in the values order', () => {
    expect(enumFromText('샤워실 고장 났어요', gym(0, 'issue'))).toBe('broken');
  });

  it('reads a short code that is also an English word only as written in capitals', () => {
    expect(enumFromText('what is open at Sejong', gym(0, 'branch'))).toBe('SJ');
    expect(enumFromText('lockers left at IS?', gym(0, 'branch'), filling(0, 'branch'))).toBe('IS');
  });

  it('reads parts of the day, sizes, a distinctive part, "&" and "-" spellings, inflected forms', () => {
    expect(enumFromText('오후에 신청', gym(1, 'slot'), filling(1, 'slot'))).toBe('PM');
    expect(enumFromText('저녁 타임으로', gym(1, 'slot'), filling(1, 'slot'))).toBe('EVENING');
    expect(enumFromText('a small one please', gym(1, 'size'), filling(1, 'size'))).toBe('S');
    expect(enumFromText('an L locker', gym(1, 'size'), filling(1, 'size'))).toBe('L');
    expect(enumFromText('one near the window', gym(1, 'area'), filling(1, 'area'))).toBe('by_window');
    expect(enumFromText('F&B area', gym(1, 'area'), filling(1, 'area'))).toBe('f_and_b');
    expect(enumFromText('the no-show ones', gym(1, 'area'), filling(1, 'area'))).toBe('no_show');
    expect(enumFromText('partially paid', gym(1, 'kind'), filling(1, 'kind'))).toBe('partial');
    // Not as evidence for choosing a tool (slotMatches reads without `broad`).
    expect(enumFromText('오후에 신청', gym(1, 'slot'))).toBeNull();
  });

  it('gives an enum input the value another filled input is described for', () => {
    const properties = GYM[1].properties;
    expect(impliedEnums(properties, { months: 3 }, new Set())).toEqual({ action: 'extend' });
    expect(impliedEnums(properties, { months: 3, action: 'assign' }, new Set(['action']))).toEqual({
      action: 'extend',
    });
    expect(impliedEnums(properties, { months: 3, action: 'release' }, new Set())).toEqual({});
  });
});

describe('more of what a schema and a question say', () => {
  const [include, status, cover, room, phone, origin, dest, count, code] = schemaProperties({
    type: 'object',
    properties: {
      include: { type: 'string', enum: ['history', 'returns', 'all'] },
      status: { type: 'string', enum: ['available', 'on_loan', 'out_of_service'] },
      cover: { type: 'string', enum: ['none', 'basic', 'full'] },
      room: { type: 'string', pattern: '^[0-9]{3,4}$', description: 'Study room' },
      phone_last4: { type: 'string', pattern: '^[0-9]{4}$' },
      from_zip: { type: 'string', pattern: '^\\d{5}$' },
      to_zip: { type: 'string', pattern: '^\\d{5}$' },
      copies: { type: 'integer', description: 'number of copies' },
      card: { type: 'string', pattern: '^LC\\d{6}$' },
    },
  });
  const broad = (description = '') => ({ descriptions: [], prose: [description], broad: true });

  it('reads a label written before a parenthesis naming one value', () => {
    const prose = broad('대출 이력(loan history), 반납(returns) 또는 전체');
    expect(
      enumFromText('반납 건 보여줘', include, broad('대출 이력(loan history), 반납(returns) 또는 전체')),
    ).toBe('returns');
    expect(enumFromText('대출 이력 전부', include, prose)).toBe('history');
  });

  it('reads an acronym of a three-part value and "no <input>" as none', () => {
    expect(enumFromText('rooms marked OOS', status, broad())).toBe('out_of_service');
    expect(enumFromText('a quote with no cover', cover, broad())).toBe('none');
  });

  it('reads digits alone for the inputs of their shape, in order, and codes before a colon', () => {
    expect(patternFromText('Mapo 1119 lights out', room, [room, count])).toBe('1119');
    expect(patternFromText('Mapo 1119 lights out', room)).toBeNull();
    expect(patternFromText('전화번호 뒷자리 7731 손님', phone, [phone])).toBe('7731');
    expect(patternFromText('ship 28502 to 48058', origin, [origin, dest])).toBe('28502');
    expect(patternFromText('ship 28502 to 48058', dest, [origin, dest])).toBe('48058');
    expect(patternFromText('order 1200 copies for 1119', room, [room, count])).toBe('1119');
    expect(patternFromText('For LC204511: renew it', code)).toBe('LC204511');
  });

  it('reads a counter as a word, not the counter it starts with ("30박스" is no nights), and "2-day"', () => {
    expect(numberFromText('30박스 정도', count, [count])).toBeNull();
    expect(numberFromText('a 2-day pass', property('days'))).toBe(2);
  });

  it('reads durations written as values and words of time granularity', () => {
    const [samples, by] = schemaProperties({
      type: 'object',
      properties: {
        samples: { type: 'string', enum: ['auto', '5m', '15m', '1h'] },
        by: { type: 'string', enum: ['day', 'hour'] },
      },
    });
    expect(enumFromText('read the 5-minute samples', samples, broad())).toBe('5m');
    expect(enumFromText('15분 단위로', samples, broad())).toBe('15m');
    expect(enumFromText('hourly samples', samples, broad())).toBe('1h');
    expect(enumFromText('오늘 시간대별 출고', by, broad())).toBe('hour');
    expect(enumFromText('이번달 일자별로', by, broad())).toBe('day');
  });

  it('reads loanwords: a Korean spelling of an English value, an English spelling of a Korean label', () => {
    expect(loanKey('사이드미러')).toBe(loanKey('side mirror'));
    expect(loanKey('엑스레이')).toBe(loanKey('xray'));
    const [part, plan] = schemaProperties({
      type: 'object',
      properties: {
        part: { type: 'string', enum: ['side_mirror', 'windshield', 'wheel'] },
        plan: {
          type: 'string',
          enum: ['keep', 'premium'],
          description: 'keep (유지) / premium (업그레이드)',
        },
      },
    });
    expect(enumFromText('사이드미러 깨졌어요', part, broad())).toBe('side_mirror');
    expect(enumFromText('please upgrade her', plan, broad())).toBe('premium');
    expect(enumFromText('someone called', plan, broad())).toBeNull();
    // A native word with the same consonants is no loanword ("지난달" and central).
    const [branch] = schemaProperties({
      type: 'object',
      properties: { branch: { type: 'string', enum: ['all', 'central', 'riverside'] } },
    });
    expect(enumFromText('지난달 대출 보고서', branch, broad())).toBeNull();
  });

  it("reads common status and urgency words in Korean, and a flag by its name word's synonyms", () => {
    const [paid, urgency, express] = schemaProperties({
      type: 'object',
      properties: {
        paid: { type: 'string', enum: ['paid', 'unpaid', 'refunded', 'partial'] },
        urgency: { type: 'string', enum: ['normal', 'urgent'] },
        express: { type: 'boolean', description: 'same-day' },
      },
    });
    const urgent = schemaProperties({ type: 'object', properties: { urgent: { type: 'boolean' } } })[0];
    expect(enumFromText('지난달 환불해준 거', paid, broad())).toBe('refunded');
    expect(enumFromText('outstanding balances', paid, broad())).toBe('unpaid');
    expect(enumFromText('10개 급하게 주문', urgency, broad())).toBe('urgent');
    expect(booleanFromText('전부 급발주 해주세요', urgent)).toBe(true);
    expect(booleanFromText('rush PO - 10 boxes', urgent)).toBe(true);
    expect(booleanFromText('rush PO', express)).toBeNull();
  });

  it('reads the first word of a two-word label, a Korean word inside a longer label, a label romanised', () => {
    const [site, test] = schemaProperties({
      type: 'object',
      properties: {
        site: {
          type: 'string',
          enum: ['SW', 'GN', 'MP'],
          description: 'SW Suwon Gwanggyo, GN Gangnam Station, MP Mapo (수원광교 / 강남역 / 마포)',
        },
        test: {
          type: 'string',
          enum: ['cbc', 'hw_antigen'],
          description: 'cbc 혈구검사, hw_antigen 심장사상충',
        },
      },
    });
    expect(enumFromText('suwon: claims returned', site, broad())).toBe('SW');
    expect(enumFromText('지난달 수원 반송', site, broad())).toBe('SW');
    expect(enumFromText('이번달 사상충 양성', test, broad())).toBe('hw_antigen');
  });
});
