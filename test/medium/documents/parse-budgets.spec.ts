import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentsModule } from '@app/documents';
import {
  BOMB_BYTES,
  EmbeddingsServer,
  makeDocx,
  makeFlatePdf,
  makePptx,
  makeXlsx,
  padXmlEntry,
  patchZip,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
  withManyEntries,
} from '@test/support';

const BUDGET_KEYS = [
  'DOCUMENTS_PARSE_MAX_ENTRY_BYTES',
  'DOCUMENTS_PARSE_MAX_EXPANDED_BYTES',
  'DOCUMENTS_PARSE_MAX_RATIO',
];

describe(`parsing budgets (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let ingestion: DocumentIngestionService;
  let db: DataSource;
  let tenantId: string;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 32 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'test-embed',
      EMBEDDINGS_DIMENSIONS: '32',
      DOCUMENTS_CHUNK_TARGET_CHARS: '300',
      DOCUMENTS_JOB_RETRY_BASE_SECONDS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '3',
      DOCUMENTS_PARSE_MAX_ENTRY_BYTES: String(4 * 1024 * 1024),
      DOCUMENTS_PARSE_MAX_EXPANDED_BYTES: String(8 * 1024 * 1024),
      DOCUMENTS_PARSE_MAX_ZIP_ENTRIES: '200',
      DOCUMENTS_MAX_CHUNKS: '50',
    });
    ingestion = ctx.get(DocumentIngestionService);
    db = ctx.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('budget-test', 'Budget test', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  /** Ingests one file and returns its document, its job and its chunk count once the queue is empty. */
  async function ingest(filename: string, content: Buffer | string) {
    const created = await ingestion.create(tenantId, { filename, content });
    await ingestion.processQueue();
    const document = await ingestion.get(tenantId, created.id);
    const [job]: Array<{ status: string; attempts: number }> = await db.query(
      `SELECT status, attempts FROM document_jobs WHERE document_id = $1`,
      [created.id],
    );
    const [{ count }]: Array<{ count: string }> = await db.query(
      `SELECT count(*) AS count FROM document_chunks WHERE document_id = $1`,
      [created.id],
    );
    return { document, job, chunks: Number(count) };
  }

  function expectBudgetFailure(result: Awaited<ReturnType<typeof ingest>>, keys: string[]) {
    expect(result.document.status).toBe('failed');
    expect(result.document.error_details).toMatchObject({
      code: 'DOCUMENT_BUDGET_EXCEEDED',
      retryable: false,
      attempts: 1,
    });
    expect(keys).toContain(result.document.error_details!.limit!.key);
    expect(result.document.error_details!.message).toContain(result.document.error_details!.limit!.key);
    expect(result.job).toEqual({ status: 'failed', attempts: 1 });
    expect(result.chunks).toBe(0);
  }

  it('still ingests ordinary office files within the budget', async () => {
    for (const [filename, content] of [
      ['ok.docx', await makeDocx()],
      ['ok.pptx', await makePptx()],
      ['ok.xlsx', await makeXlsx({ Hosts: [['name'], ['web-1']] })],
      ['ok.pdf', makeFlatePdf('Hello budget', 1000)],
    ] as const) {
      const result = await ingest(filename, content);
      expect({ filename, status: result.document.status, error: result.document.error_details }).toEqual({
        filename,
        status: 'done',
        error: null,
      });
    }
  });

  it('fails a pptx whose slide inflates past the budget, without retrying', async () => {
    const bomb = padXmlEntry(await makePptx(), 'ppt/slides/slide1.xml', BOMB_BYTES);
    expect(bomb.length).toBeLessThan(200 * 1024);
    expectBudgetFailure(await ingest('bomb.pptx', bomb), BUDGET_KEYS);
  });

  it('fails a pptx with a huge entry no parser needs, from its declared size', async () => {
    const bomb = patchZip(await makePptx(), { 'ppt/media/unused.bin': new Uint8Array(BOMB_BYTES) });
    expectBudgetFailure(await ingest('unused.pptx', bomb), BUDGET_KEYS);
  });

  it('fails an archive with too many entries', async () => {
    const bomb = withManyEntries(await makeDocx(), 300);
    expectBudgetFailure(await ingest('many.docx', bomb), ['DOCUMENTS_PARSE_MAX_ZIP_ENTRIES']);
  });

  it('fails a docx whose document.xml inflates past the budget', async () => {
    const bomb = padXmlEntry(await makeDocx(), 'word/document.xml', BOMB_BYTES);
    expectBudgetFailure(await ingest('bomb.docx', bomb), BUDGET_KEYS);
  });

  it('fails an xlsx whose worksheet inflates past the budget', async () => {
    const bomb = padXmlEntry(
      await makeXlsx({ Hosts: [['name'], ['web-1']] }),
      'xl/worksheets/sheet1.xml',
      BOMB_BYTES,
    );
    expectBudgetFailure(await ingest('bomb.xlsx', bomb), BUDGET_KEYS);
  });

  it('fails a PDF whose Flate stream expands past the cap', async () => {
    const bomb = makeFlatePdf('Hello budget', BOMB_BYTES);
    expect(bomb.length).toBeLessThan(100 * 1024);
    expectBudgetFailure(await ingest('bomb.pdf', bomb), BUDGET_KEYS);
  });

  it('fails a document that would produce more chunks than DOCUMENTS_MAX_CHUNKS, before embedding', async () => {
    const embedded = server.embeddedTexts();
    const text = Array.from(
      { length: 120 },
      (_, i) => `Paragraph ${i} ${'about disks and memory '.repeat(14)}`,
    ).join('\n\n');
    const result = await ingest('many-chunks.txt', text);
    expectBudgetFailure(result, ['DOCUMENTS_MAX_CHUNKS']);
    expect(result.document.error_details!.limit).toMatchObject({ key: 'DOCUMENTS_MAX_CHUNKS', limit: 50 });
    expect(server.embeddedTexts()).toBe(embedded);
  });
});
