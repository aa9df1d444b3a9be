import { resolveKeywords } from './ci-resolver.util';

type Rule = { match_type: string; pattern: string; field: string; value: string };
const resolver = (name: string, ...rules: Rule[]) => ({ name, content: { rules: rules as never } });
const rule = (match_type: string, pattern: string, field: string, value: string): Rule => ({
  match_type,
  pattern,
  field,
  value,
});

describe('resolver precedence and matching', () => {
  it('lets the first resolver by name win, whatever order they were published in', () => {
    const result = resolveKeywords(
      [
        resolver('zz-late', rule('exact', '결제서버', 'name', 'SRV-Z')),
        resolver('aa-early', rule('exact', '결제서버', 'name', 'SRV-A')),
      ],
      ['결제서버'],
      {},
    );
    expect(result.filters).toEqual({ names: ['SRV-A'] });
    expect(result.resolved).toEqual([
      { keyword: '결제서버', field: 'names', value: 'SRV-A', resolver: 'aa-early' },
    ]);
  });

  it('takes the first matching rule of a resolver, skipping rules on fields ci_lookup cannot filter', () => {
    const result = resolveKeywords(
      [
        resolver(
          'r',
          rule('contains', '결제', 'region', 'ignored'),
          rule('contains', '결제', 'owner', 'payments-team'),
          rule('contains', '결제', 'name', 'too-late'),
        ),
      ],
      ['운영 결제 API'],
      {},
    );
    expect(result.filters).toEqual({ owner: ['payments-team'] });
  });

  it('matches exact, prefix and contains rules case-insensitively, on the trimmed keyword', () => {
    const result = resolveKeywords(
      [
        resolver(
          'r',
          rule('exact', 'Prod-DB', 'ci_type', 'database'),
          rule('prefix', 'SRV-', 'tag', 'legacy'),
          rule('contains', 'Payment', 'status', 'running'),
        ),
      ],
      ['  prod-db ', 'srv-007', 'old-PAYMENT-box'],
      {},
    );
    expect(result.filters).toEqual({ ci_type: ['database'], tags: ['legacy'], status: ['running'] });
    expect(result.resolved.map((r) => r.keyword)).toEqual(['prod-db', 'srv-007', 'old-PAYMENT-box']);
  });

  it('does not repeat a value two keywords resolve to, nor one the caller already filtered on', () => {
    const result = resolveKeywords(
      [resolver('r', rule('prefix', '결제', 'name', 'SRV-PAY-01'))],
      ['결제서버', '결제 서버'],
      { names: ['SRV-PAY-01'] },
    );
    expect(result.filters.names).toEqual(['SRV-PAY-01']);
    expect(result.resolved).toHaveLength(2);
    expect(result.keywords).toEqual([]);
  });

  it('keeps a keyword no rule matches as it was given (untrimmed) for the text search', () => {
    const result = resolveKeywords([resolver('r', rule('exact', 'x', 'name', 'X'))], [' 주문 '], {});
    expect(result.keywords).toEqual([' 주문 ']);
    expect(result.filters).toEqual({});
  });
});
