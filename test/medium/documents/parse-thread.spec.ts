import { createHash } from 'node:crypto';
import { DocumentParseThread, parseDocument, THREADED_MIN_BYTES } from '@app/documents';
import { makeLargeDocx } from '@test/support';

/** Paragraph texts of made-up words (deterministic, from a hash), so the file does not compress to nothing. */
function paragraphs(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const words: string[] = [];
    for (let block = 0; words.length < 60; block++) {
      const digest = createHash('sha256')
        .update(`${i}:${block}`)
        .digest('base64url')
        .replace(/[-_\d]/g, '');
      for (let at = 0; at + 7 <= digest.length && words.length < 60; at += 7)
        words.push(digest.slice(at, at + 7));
    }
    return `${words.join(' ')}.`;
  });
}

const budget = {
  maxZipEntries: 10_000,
  maxEntryBytes: 50 * 1024 * 1024,
  maxExpandedBytes: 100 * 1024 * 1024,
  maxRatio: 200,
  maxPdfPages: 5_000,
  maxTextChars: 20_000_000,
};

/** How many turns the event loop makes (setImmediate callbacks) until `work` settles. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ ticks: number; result: T }> {
  let ticks = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    ticks++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { result: await work(), ticks };
  } finally {
    done = true;
  }
}

describe('large office files parse on a thread of their own', () => {
  const thread = new DocumentParseThread();
  let docx: Buffer;

  beforeAll(async () => {
    docx = await makeLargeDocx(paragraphs(1500), 500, 6);
  }, 120_000);
  afterAll(() => thread.onApplicationShutdown());

  it('keeps the event loop turning while a large docx is parsed, with the same blocks as inline', async () => {
    expect(docx.length).toBeGreaterThan(2 * THREADED_MIN_BYTES);
    expect(DocumentParseThread.threaded('docx', docx.length)).toBe(true);
    // Started once first: the thread's start-up (loading the parser) is not what is counted.
    await thread.parse(docx, 'docx', budget);

    const inline = await ticksDuring(() => parseDocument(docx, 'docx', budget));
    const threaded = await ticksDuring(() => thread.parse(docx, 'docx', budget));
    expect(threaded.result).toEqual(inline.result);
    expect(threaded.result.length).toBeGreaterThan(3000);
    // Inline, the parse is one long stretch of synchronous work with few turns of the loop between;
    // on the thread the loop is free the whole time and turns continuously.
    expect(threaded.ticks).toBeGreaterThan(1000);
    expect(threaded.ticks).toBeGreaterThan(inline.ticks * 20);
    expect(thread.threadedParses).toBe(2);
  }, 120_000);

  it('brings the parser errors back as they are: corrupt, and over a budget with its limit', async () => {
    const corrupt = Buffer.alloc(THREADED_MIN_BYTES + 10, 7);
    await expect(thread.parse(corrupt, 'docx', budget)).rejects.toMatchObject({
      name: 'DocumentProcessingError',
      code: 'DOCUMENT_CORRUPT',
      retryable: false,
    });
    const error = await thread
      .parse(docx, 'docx', { ...budget, maxTextChars: 1000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'DocumentBudgetError',
      code: 'DOCUMENT_BUDGET_EXCEEDED',
      retryable: false,
      limit: { key: 'DOCUMENTS_PARSE_MAX_TEXT_CHARS', limit: 1000 },
    });
  }, 60_000);

  it('parses small files and text formats inline', async () => {
    const before = thread.threadedParses;
    const blocks = await thread.parse(Buffer.from('# Title\n\nBody text.'), 'markdown', budget);
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph']);
    expect(thread.threadedParses).toBe(before);
  });
});
