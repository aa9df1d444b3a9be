import { detectFormat } from './document-format.util';
import { htmlToBlocks } from './html-blocks.util';
import { markdownToBlocks } from './markdown-blocks.util';

describe('markdown to blocks', () => {
  it('keeps heading levels, list items apart from paragraphs, tables and code, in document order', () => {
    expect(
      markdownToBlocks(
        [
          '# 장애 대응',
          '',
          '먼저 **상태**를 확인합니다.',
          '',
          '- 커넥션 수',
          '  - 대기 중인 쿼리',
          '',
          '## 조치',
          '',
          '| 서버 | 상태 |',
          '| --- | --- |',
          '| prod-db | 저하 |',
          '',
          '```sql',
          'SELECT 1;',
          '```',
        ].join('\n'),
      ),
    ).toEqual([
      { kind: 'heading', level: 1, text: '장애 대응' },
      { kind: 'paragraph', text: '먼저 상태를 확인합니다.' },
      { kind: 'list_item', text: '커넥션 수' },
      { kind: 'list_item', text: '대기 중인 쿼리' },
      { kind: 'heading', level: 2, text: '조치' },
      { kind: 'table', header: ['서버', '상태'], rows: [['prod-db', '저하']] },
      { kind: 'code', text: 'SELECT 1;' },
    ]);
  });

  it("keeps an image's alt text as an image block, drops empty headings, and never renders raw HTML", () => {
    expect(markdownToBlocks('#\n\n![구성도](arch.png)\n\n<script>alert(1)</script>')).toEqual([
      { kind: 'image', text: '구성도' },
      { kind: 'paragraph', text: '<script>alert(1)</script>' },
    ]);
  });
});

describe('html to blocks', () => {
  it('reads headings, paragraphs with inline markup, nested lists, captioned tables and pre blocks', () => {
    expect(
      htmlToBlocks(`<html><head><title>x</title><style>p{}</style></head><body>
        <h2>롤백 절차</h2>
        <p>이전 <b>버전</b>으로 <a href="#">되돌립니다</a>.</p>
        <ul><li>배포 중지<ul><li>트래픽 차단</li></ul></li></ul>
        <table><caption>대상</caption><tr><th>서비스</th></tr><tr><td>order-api</td></tr><tr><td></td></tr></table>
        <pre>kubectl rollout undo</pre>
        <script>ignored()</script>
      </body></html>`),
    ).toEqual([
      { kind: 'heading', level: 2, text: '롤백 절차' },
      { kind: 'paragraph', text: '이전 버전으로 되돌립니다.' },
      { kind: 'list_item', text: '배포 중지' },
      { kind: 'list_item', text: '트래픽 차단' },
      { kind: 'table', header: ['서비스'], rows: [['order-api']], caption: '대상' },
      { kind: 'code', text: 'kubectl rollout undo' },
    ]);
  });
});

describe('the format of an upload', () => {
  it('trusts a specific content type over the extension, parameters and case aside', () => {
    expect(detectFormat('notes.txt', 'text/Markdown; charset=utf-8')).toBe('markdown');
    expect(detectFormat('report', 'application/pdf')).toBe('pdf');
  });

  it('uses the extension only when the type is missing or generic', () => {
    expect(detectFormat('런북.MD', undefined)).toBe('markdown');
    expect(detectFormat('sheet.xlsx', 'application/octet-stream')).toBe('xlsx');
  });

  it('refuses an unknown type (415), even with a known extension', () => {
    expect(() => detectFormat('a.md', 'image/png')).toThrow(/Unsupported document type "image\/png"/);
    let refused: unknown;
    try {
      detectFormat('archive.zip', undefined);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      code: 'UNSUPPORTED_DOCUMENT_TYPE',
      details: { filename: 'archive.zip' },
    });
  });
});
