import { schemaProperties } from '../plan/schema-introspection.util';
import { numberMentions } from './quantities';
import { numberFromText } from './slot-values';

// A bakery's order tool, invented.
const ORDER = schemaProperties({
  type: 'object',
  properties: {
    item_code: { type: 'string', pattern: '^BK-\\d{5}$' },
    quantity: { type: 'integer', minimum: 1, maximum: 500, description: '수량' },
    weight_kg: { type: 'number' },
    deposit: { type: 'integer', description: 'KRW' },
    keep_days: { type: 'integer', maximum: 90, description: '보관 일수' },
    nights: { type: 'integer', description: 'Number of nights' },
  },
});
const input = (name: string) => ORDER.find((p) => p.name === name)!;
const read = (text: string, name: string) => numberFromText(text, input(name), ORDER);

describe('numbers the question states', () => {
  it('reads digits with separators and multipliers, numerals and number words, not dates, times or codes', () => {
    expect(numberMentions('42,000원 받고 15만원은 환불').map((m) => m.value)).toEqual([42000, 150000]);
    expect(numberMentions('over 500k won').map((m) => m.value)).toEqual([500000]);
    expect(numberMentions('다섯 개, 한 달').map((m) => [m.value, m.unit])).toEqual([
      [5, '개'],
      [1, '달'],
    ]);
    expect(numberMentions('two extra days').map((m) => [m.value, m.unit])).toEqual([[2, 'days']]);
    expect(numberMentions('BK-20417 12월 3일 오후 2시 3:30 35허7719')).toEqual([]);
    expect(numberMentions('x30 for BK-10001').map((m) => [m.value, m.counted])).toEqual([[30, true]]);
  });

  it('fills a count of things with a number said as a count or with a counter no other input takes', () => {
    expect(read('BK-20417 x30', 'quantity')).toBe(30);
    expect(read('order 10 of BK-20417 for Friday', 'quantity')).toBe(10);
    expect(read('20 boxes of BK-20417, 3kg each', 'quantity')).toBe(20);
    expect(read('BK-20417 다섯 개 주문', 'quantity')).toBe(5);
    expect(read('3kg 주문', 'quantity')).toBeNull();
  });

  it('fills money in won, or with the one large number', () => {
    expect(read('보증금 15만원', 'deposit')).toBe(150000);
    expect(read('they want 80,000 won', 'deposit')).toBe(80000);
    expect(read('submit for 320000', 'deposit')).toBe(320000);
  });

  it('fills a count of days said in weeks or months, and a count with a word between', () => {
    expect(read('keep it for 2 weeks', 'keep_days')).toBe(14);
    expect(read('한 달 보관', 'keep_days')).toBe(30);
    expect(read('12월 20일에 3일 보관', 'keep_days')).toBe(3);
    expect(read('2 more nights', 'nights')).toBe(2);
  });
});
