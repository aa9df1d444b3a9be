import {
  hangulBigrams,
  highlightSnippet,
  queryTerms,
  tokenize,
  toIndexText,
  toKeywordQuery,
} from './search-text.util';

describe('search text', () => {
  it('splits where Hangul meets other scripts and folds case and width', () => {
    expect(tokenize('MRI는 ＡＰＩ-Gateway 재시작')).toEqual([
      { text: 'mri', hangul: false },
      { text: '는', hangul: true },
      { text: 'api', hangul: false },
      { text: 'gateway', hangul: false },
      { text: '재시작', hangul: true },
    ]);
  });

  it('indexes Hangul as character bigrams so a word with a different particle still matches', () => {
    expect(hangulBigrams('휴가를')).toEqual(['휴가', '가를']);
    const indexed = toIndexText('휴가는 미리 신청합니다').split(' ');
    expect(indexed).toEqual(expect.arrayContaining(['휴가', '신청']));
    expect(queryTerms('휴가를 신청')).toEqual(expect.arrayContaining(['휴가', '신청']));
  });

  it('builds an OR query of plain terms, dropping anything websearch would read as syntax', () => {
    expect(toKeywordQuery('restart "the" -api OR gateway')).toBe('restart or the or api or gateway');
    expect(toKeywordQuery('!!! ---')).toBeNull();
  });

  it('highlights query terms in a snippet around the first match', () => {
    const text = `${'filler '.repeat(80)}Restarting the payment gateway clears the queue. ${'tail '.repeat(80)}`;
    const snippet = highlightSnippet(text, 'restart gateway');
    expect(snippet).toContain('<mark>Restarting</mark>');
    expect(snippet).toContain('<mark>gateway</mark>');
    expect(snippet.startsWith('…')).toBe(true);
    expect(highlightSnippet('결제 게이트웨이를 재시작합니다', '게이트웨이 재시작')).toContain(
      '<mark>재시</mark>',
    );
  });
});
