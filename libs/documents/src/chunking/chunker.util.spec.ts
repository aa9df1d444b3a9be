import { ParsedBlock } from '../parsing/parsed-block';
import { chunkBlocks, splitLongText } from './chunker.util';

const options = { targetChars: 200, overlapChars: 60 };

describe('chunkBlocks', () => {
  it('starts a chunk at each heading and prefixes every chunk with the headings above it', () => {
    const blocks: ParsedBlock[] = [
      { kind: 'heading', level: 1, text: 'Runbook' },
      { kind: 'paragraph', text: 'Intro paragraph.' },
      { kind: 'heading', level: 2, text: 'Restart' },
      ...Array.from({ length: 6 }, (_, i) => ({
        kind: 'list_item' as const,
        text: `Step ${i + 1}: do a thing that takes some words to say.`,
      })),
    ];
    const chunks = chunkBlocks(blocks, options);
    expect(chunks[0].text).toBe('Runbook\nIntro paragraph.');
    expect(chunks[1].text.startsWith('Runbook\nRestart\nStep 1')).toBe(true);
    const continuation = chunks[chunks.length - 1];
    expect(continuation.text.startsWith('Runbook > Restart\n')).toBe(true);
    expect(chunks.map((c) => c.chunkIndex)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((c) => c.text.length <= 270)).toBe(true);
    // overlap: the last step of one chunk opens the next
    const lastOfFirst = chunks[1].text.split('\n').pop()!;
    expect(chunks[2].text).toContain(lastOfFirst);
  });

  it('keeps a title directly followed by a section heading, on every chunk of the document', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'heading', level: 1, text: '런북: 서버 CPU 사용률 급증 대응' },
        { kind: 'heading', level: 2, text: '적용 대상' },
        { kind: 'paragraph', text: '운영 환경의 애플리케이션 서버.' },
        { kind: 'heading', level: 2, text: '즉시 조치' },
        { kind: 'paragraph', text: '해당 인스턴스를 제외한다.' },
      ],
      options,
    );
    expect(chunks.map((c) => c.text)).toEqual([
      '런북: 서버 CPU 사용률 급증 대응\n적용 대상\n운영 환경의 애플리케이션 서버.',
      '런북: 서버 CPU 사용률 급증 대응\n즉시 조치\n해당 인스턴스를 제외한다.',
    ]);
  });

  it('never lets a chunk span two pages or slides, and records where it came from', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'paragraph', text: 'page one text', page: 1 },
        { kind: 'paragraph', text: 'page two text', page: 2 },
        { kind: 'heading', level: 2, text: 'Title only slide', slide: 3 },
      ],
      options,
    );
    expect(chunks.map((c) => [c.text, c.pageNumber, c.slideNumber])).toEqual([
      ['page one text', 1, null],
      ['page two text', 2, null],
      ['Title only slide', null, 3],
    ]);
    expect(chunks[1].positionInDoc).toBe('page one text'.length + 1);
  });

  it('splits tables by rows and repeats the header in every piece', () => {
    const rows = Array.from({ length: 30 }, (_, i) => [`host-${i}`, i % 2 ? 'up' : 'down']);
    const chunks = chunkBlocks(
      [{ kind: 'table', header: ['host', 'state'], rows, caption: 'Hosts' }],
      options,
    );
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.chunkType).toBe('table');
      expect(chunk.text.startsWith('Hosts\nhost | state\n')).toBe(true);
      expect(chunk.tableData?.header).toEqual(['host', 'state']);
    }
    expect(chunks.flatMap((c) => c.tableData!.rows)).toEqual(rows);
    expect(chunks[0].text).toContain('host: host-0 | state: down');
  });

  it('types image-only chunks as image and text with images as mixed', () => {
    const chunks = chunkBlocks(
      [
        { kind: 'image', text: 'Architecture diagram of the gateway', slide: 1 },
        { kind: 'paragraph', text: 'Gateway overview', slide: 2 },
        { kind: 'image', text: 'Latency chart', slide: 2 },
      ],
      options,
    );
    expect(chunks.map((c) => c.chunkType)).toEqual(['image', 'mixed']);
  });

  it('is deterministic, so unchanged content hashes the same', () => {
    const blocks: ParsedBlock[] = [{ kind: 'paragraph', text: 'same text' }];
    expect(chunkBlocks(blocks, options)).toEqual(chunkBlocks(blocks, options));
  });
});

describe('splitLongText', () => {
  it('cuts at sentence boundaries with overlap and never exceeds the limit', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const pieces = splitLongText(text, 120, 40);
    expect(pieces.every((p) => p.length <= 120)).toBe(true);
    expect(pieces[1].startsWith(pieces[0].split('. ').pop()!.replace(/\.$/, ''))).toBe(true);
    expect(splitLongText('x'.repeat(500), 100, 0)).toHaveLength(5);
  });
});
