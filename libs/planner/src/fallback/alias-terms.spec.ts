import { aliasTerms } from './fallback-planner';

describe('aliasTerms: the words of a question the tenant resolvers know', () => {
  const rules = [
    { match_type: 'exact' as const, pattern: '결제서버' },
    { match_type: 'prefix' as const, pattern: 'web-' },
    { match_type: 'regex' as const, pattern: '^db\\d{2}$' },
    { match_type: 'regex' as const, pattern: '(' },
  ];

  it('finds exact, prefix and regex aliases, with Korean particles after them', () => {
    expect(aliasTerms('결제서버가 느려요', rules)).toEqual(['결제서버']);
    expect(aliasTerms('restart web-07 please', rules)).toEqual(['web-07']);
    expect(aliasTerms('is db12 up?', rules)).toEqual(['db12']);
  });

  it('finds nothing in a question without them, and skips a rule that does not compile', () => {
    expect(aliasTerms('결제 시스템 상태', rules)).toEqual([]);
    expect(aliasTerms('anything', [])).toEqual([]);
  });
});
