import { resolveKeywords } from './ci-resolver.util';

const resolver = (name: string, rules: Array<Record<string, string>>) => ({
  name,
  content: { rules: rules as never },
});

describe('resolver rules for ci_lookup', () => {
  it('maps exact, prefix, contains and regex matches to filters and drops them from the text keywords', () => {
    const result = resolveKeywords(
      [
        resolver('b', [{ match_type: 'exact', pattern: '결제서버', field: 'name', value: 'SRV-PAY-01' }]),
        resolver('a', [
          { match_type: 'prefix', pattern: 'pay-', field: 'owner', value: 'payments' },
          { match_type: 'regex', pattern: '^db\\d+$', field: 'ci_type', value: 'database' },
          { match_type: 'contains', pattern: 'x', field: 'unknown_field', value: 'ignored' },
        ]),
      ],
      ['결제서버', 'PAY-team', 'db7', 'xylophone'],
      { names: ['existing'] },
    );
    expect(result.keywords).toEqual(['xylophone']);
    expect(result.filters).toEqual({
      names: ['existing', 'SRV-PAY-01'],
      owner: ['payments'],
      ci_type: ['database'],
    });
    expect(result.resolved.map((r) => r.resolver)).toEqual(['b', 'a', 'a']);
  });

  it('never runs a regex rule on a long keyword, and survives an invalid pattern', () => {
    const result = resolveKeywords(
      [
        resolver('r', [
          { match_type: 'regex', pattern: '(a+)+$', field: 'name', value: 'never' },
          { match_type: 'regex', pattern: '([', field: 'name', value: 'never' },
        ]),
      ],
      ['a'.repeat(100) + '!'],
      {},
    );
    expect(result.resolved).toEqual([]);
  });
});
