import { DocumentBudgetError } from '../documents.exception';
import type { ParsedBlock } from '../parsing/parsed-block';
import { chunkBlocks, sha256, splitLongText } from './chunker.util';

const KO_SENTENCES = Array.from(
  { length: 12 },
  (_, i) => `${i + 1}번 단계에서 결제 서버의 커넥션 풀 상태를 확인합니다.`,
).join(' ');

describe('splitLongText', () => {
  it('cuts Korean text at sentence ends, never past the limit, losing no sentence', () => {
    const pieces = splitLongText(KO_SENTENCES, 80, 0);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.length <= 80)).toBe(true);
    expect(pieces.every((p) => p.endsWith('확인합니다.'))).toBe(true);
    expect(pieces.join(' ')).toBe(KO_SENTENCES);
  });

  it('repeats the last sentence(s) that fit in the overlap at the start of the next piece', () => {
    const pieces = splitLongText(KO_SENTENCES, 80, 40);
    for (let i = 1; i < pieces.length; i++) {
      const lastSentence = /[^.]+\.$/.exec(pieces[i - 1])![0].trim();
      expect(pieces[i].startsWith(lastSentence)).toBe(true);
    }
  });

  it('breaks at CJK and full-width sentence marks too (。！？)', () => {
    expect(splitLongText('第一文です。第二文です！第三文ですか？', 8, 0)).toEqual([
      '第一文です。',
      '第二文です！',
      '第三文ですか？',
    ]);
  });

  it('falls back to word boundaries for one long sentence, and cuts a word longer than the limit hard', () => {
    const words = splitLongText('알파 브라보 찰리 델타 에코 폭스트롯 골프 호텔', 10, 0);
    expect(words.every((p) => p.length <= 10)).toBe(true);
    expect(words.join(' ')).toBe('알파 브라보 찰리 델타 에코 폭스트롯 골프 호텔');
    const hash = 'f'.repeat(25);
    expect(splitLongText(hash, 10, 0)).toEqual(['ffffffffff', 'ffffffffff', 'fffff']);
  });

  it('returns a short text whole, and nothing for blank text', () => {
    expect(splitLongText('짧은 문장.', 100, 20)).toEqual(['짧은 문장.']);
    expect(splitLongText('   ', 100, 20)).toEqual([]);
  });
});

describe('chunkBlocks', () => {
  const options = { targetChars: 120, overlapChars: 40 };

  it('a heading replaces the path from its level down; a chunk opening with a heading gets its ancestors as a path', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'heading', level: 1, text: 'A' },
        { kind: 'heading', level: 2, text: 'B' },
        { kind: 'heading', level: 3, text: 'C' },
        { kind: 'paragraph', text: 'c text' },
        { kind: 'heading', level: 2, text: 'D' },
        { kind: 'paragraph', text: 'd text' },
      ],
      options,
    );
    expect(chunks.map((c) => c.text)).toEqual(['A > B\nC\nc text', 'A\nD\nd text']);
  });

  it('keeps a heading at the end of the document as a chunk of its own rather than dropping it', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'paragraph', text: 'body' },
        { kind: 'heading', level: 1, text: '부록' },
      ],
      options,
    );
    expect(chunks.map((c) => c.text)).toEqual(['body', '부록']);
  });

  it('counts positions through the document, and hashes each chunk text', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'heading', level: 1, text: 'T' },
        { kind: 'paragraph', text: 'first' },
        { kind: 'heading', level: 1, text: 'U' },
        { kind: 'paragraph', text: 'second' },
      ],
      options,
    );
    expect(chunks.map((c) => c.positionInDoc)).toEqual([0, 'T\nfirst\n'.length]);
    for (const chunk of chunks) expect(chunk.sourceHash).toBe(sha256(chunk.text));
  });

  it('caps the overlap at half the target, so a chunk always moves forward', () => {
    const blocks: ParsedBlock[] = Array.from({ length: 8 }, (_, i) => ({
      kind: 'paragraph' as const,
      text: `문단 ${i} ${'가'.repeat(30)}`,
    }));
    const chunks = chunkBlocks(blocks, { targetChars: 80, overlapChars: 1000 });
    expect(chunks.every((c) => c.text.length <= 80)).toBe(true);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i].text).not.toBe(chunks[i - 1].text);
    expect(chunks.at(-1)!.text).toContain('문단 7');
  });

  it('an empty table still yields its header, once', () => {
    const chunks = chunkBlocks(
      [{ kind: 'table', header: ['서버', '상태'], rows: [], caption: '자산' }],
      options,
    );
    expect(chunks.map((c) => [c.text, c.chunkType, c.tableData?.row_range])).toEqual([
      ['자산\n서버 | 상태', 'table', [1, 1]],
    ]);
  });

  it('drops empty cells from a table row line instead of printing "header: "', () => {
    const [chunk] = chunkBlocks(
      [{ kind: 'table', header: ['이름', '담당', '비고'], rows: [['prod-db', '', '주의']] }],
      options,
    );
    expect(chunk.text).toBe('이름 | 담당 | 비고\n이름: prod-db | 비고: 주의');
  });

  it('refuses a document past its chunk budget with a budget error naming the key', () => {
    const blocks: ParsedBlock[] = Array.from({ length: 5 }, (_, i) => ({
      kind: 'heading' as const,
      level: 1,
      text: `H${i}`,
    })).flatMap((h): ParsedBlock[] => [h, { kind: 'paragraph', text: 'x' }]);
    expect(() => chunkBlocks(blocks, { ...options, maxChunks: 3 })).toThrow(DocumentBudgetError);
    expect(chunkBlocks(blocks, { ...options, maxChunks: 5 })).toHaveLength(5);
  });
});
