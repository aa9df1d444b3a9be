import {
  hangulBigrams,
  hangulTerms,
  highlightSnippet,
  queryTerms,
  stripHangulSuffix,
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

  it('drops particles and question endings before taking bigrams, keeping stems of at least two syllables', () => {
    expect(stripHangulSuffix('임종석이')).toBe('임종석');
    expect(stripHangulSuffix('서울에서는')).toBe('서울');
    expect(stripHangulSuffix('무엇인가요')).toBe('무엇');
    expect(stripHangulSuffix('날은')).toBe('날은');
    expect(stripHangulSuffix('나이')).toBe('나이');
    expect(hangulTerms('임종석이')).toEqual(['임종', '종석']);
    // the question's and the passage's forms of a word now share all their terms
    expect(queryTerms('임종석이 주도한')).toEqual(expect.arrayContaining(hangulTerms('임종석은')));
    expect(toIndexText('임종석은 서울에서')).toBe('임종 종석 서울');
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
