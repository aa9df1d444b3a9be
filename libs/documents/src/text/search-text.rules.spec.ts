import {
  highlightSnippet,
  queryTerms,
  stripHangulSuffix,
  tokenize,
  toIndexText,
  toKeywordQuery,
} from './search-text.util';

describe('what a word is (index, query and hashed embedder agree)', () => {
  it('splits digits from Hangul and punctuation from names', () => {
    expect(tokenize('500에러 prod-db_01').map((t) => t.text)).toEqual(['500', '에러', 'prod', 'db', '01']);
  });

  it('folds compatibility forms: full-width digits, circled numbers and the ㎒ unit become plain text', () => {
    expect(tokenize('５００ ① ㎒').map((t) => t.text)).toEqual(['500', '1', 'mhz']);
  });

  it('keeps a Hangul run apart from Latin letters glued to it, both ways', () => {
    expect(tokenize('DB서버API').map((t) => [t.text, t.hangul])).toEqual([
      ['db', false],
      ['서버', true],
      ['api', false],
    ]);
  });
});

describe('Korean particles and endings', () => {
  it.each([
    ['서버가', '서버'],
    ['서버에서', '서버'],
    ['데이터베이스의', '데이터베이스'],
    ['장애로부터', '장애'],
    ['배포했습니까', '배포했'],
    ['롤백이란', '롤백'],
  ])('%s keeps the stem %s', (word, stem) => {
    expect(stripHangulSuffix(word)).toBe(stem);
  });

  it.each(['가', '나는', '서울'])(
    'leaves %s alone: removing an ending would leave under two syllables',
    (word) => {
      expect(stripHangulSuffix(word)).toBe(word);
    },
  );

  it('indexes a word and its particle forms to the same terms', () => {
    const forms = ['커넥션이', '커넥션을', '커넥션에서', '커넥션'].map((w) => toIndexText(w));
    expect(new Set(forms)).toEqual(new Set(['커넥 넥션']));
  });
});

describe('the keyword query', () => {
  it('asks for each distinct term once, Korean as stem bigrams', () => {
    expect(queryTerms('서버 서버가 SERVER server')).toEqual(['서버', 'server']);
    expect(queryTerms('결제서버의 CPU')).toEqual(['결제', '제서', '서버', 'cpu']);
  });

  it('never passes websearch syntax on: quotes, minus, or/and/not as words, pipes, parentheses', () => {
    expect(toKeywordQuery('"장애" -(롤백) | a & !b or and not')).toBe('장애 or 롤백 or a or b');
    expect(toKeywordQuery("'; DROP TABLE documents; --")).toBe('drop or table or documents');
  });

  it('has no query for text with no letters or digits', () => {
    expect(toKeywordQuery('?? … —')).toBeNull();
    expect(queryTerms('or and not')).toEqual([]);
  });
});

describe('snippets', () => {
  it('marks a Korean term inside a word carrying a particle', () => {
    expect(highlightSnippet('결제 서버에서 장애가 났습니다', '장애')).toBe(
      '결제 서버에서 <mark>장애</mark>가 났습니다',
    );
  });

  it('marks Latin terms only at word starts, so "log" does not light up inside "catalog"', () => {
    expect(highlightSnippet('catalog log logging', 'log')).toBe(
      'catalog <mark>log</mark> <mark>logging</mark>',
    );
  });

  it('opens the window before the first hit and marks the cut ends', () => {
    const text = `${'앞부분 '.repeat(100)}커넥션 풀 고갈 ${'뒷부분 '.repeat(100)}`;
    const snippet = highlightSnippet(text, '커넥션', 80);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).toContain('<mark>커넥</mark>');
  });

  it('is the start of the text when nothing matches, and treats regex characters in the query literally', () => {
    expect(highlightSnippet('plain text here', 'zzz', 5)).toBe('plain…');
    expect(highlightSnippet('cost (usd) rose', '(usd)* [')).toBe('cost (<mark>usd</mark>) rose');
  });
});
