import { gradeByOverlap, keywordQuery } from './chat-judges.service';
import { routeByRules } from './chat-router.service';
import { excerptFor, extractiveAnswer, toCitations } from './extractive-answer.util';
import type { Passage } from './search/passage';

const doc = (text: string, extra: Partial<Passage> = {}): Passage => ({
  kind: 'document',
  document_id: 'd1',
  document_name: 'leave-policy.md',
  chunk_id: 'c1',
  chunk_index: 2,
  page: null,
  score: 0.9,
  text,
  ...(extra as object),
});

describe('chat rules without a model', () => {
  it('routes greetings to CHITCHAT, web hints to WEB_SEARCH only when configured, the rest to INTERNAL_SEARCH', () => {
    expect(routeByRules('안녕하세요! 오늘 기분이 좋아요', true)).toBe('CHITCHAT');
    expect(routeByRules('Thanks a lot', false)).toBe('CHITCHAT');
    expect(routeByRules('휴가 신청 방법 알려줘', true)).toBe('INTERNAL_SEARCH');
    expect(routeByRules('latest news about PostgreSQL 18', true)).toBe('WEB_SEARCH');
    expect(routeByRules('latest news about PostgreSQL 18', false)).toBe('INTERNAL_SEARCH');
    expect(
      routeByRules(
        'hello, how do I request vacation days under the policy for new employees?'.repeat(2),
        false,
      ),
    ).toBe('INTERNAL_SEARCH');
  });

  it('grades by shared terms and rewrites to keywords', () => {
    expect(gradeByOverlap('휴가 신청 방법', [doc('연차 휴가는 신청서를 제출한다.')])).toBe('PASS');
    expect(gradeByOverlap('vacation request', [doc('The cafeteria opens at 8.')])).toBe('FAIL');
    expect(gradeByOverlap('vacation request', [])).toBe('FAIL');
    expect(keywordQuery('What is the process for requesting vacation?')).toBe('process requesting vacation');
  });

  it('quotes the best sentence of each passage with its citation number and page', () => {
    const passages = [
      doc(
        'The office opens at 9. Vacation requests go through the HR portal at least 3 days ahead. Lunch is at 12.',
      ),
      doc('Sick leave needs a note.', { chunk_id: 'c2', page: 4, document_name: 'handbook.pdf' }),
    ];
    expect(excerptFor('how do vacation requests work', passages[0])).toMatch(
      /^Vacation requests go through the HR portal/,
    );
    const answer = extractiveAnswer(
      'how do vacation requests work',
      toCitations('how do vacation requests work', passages),
    );
    expect(answer).toContain(
      'Vacation requests go through the HR portal at least 3 days ahead. [1] (leave-policy.md, chunk 2)',
    );
    expect(answer).toContain('[2] (handbook.pdf, p.4)');
  });
});
