import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentMaintenanceService, DocumentsModule } from '@app/documents';
import { ChunksRepository } from '@app/documents/testing';
import {
  EmbeddingsServer,
  makeDocx,
  makeEncryptedXlsx,
  makePdf,
  makePptx,
  makeXlsx,
  startEmbeddingsServer,
  startTestContext,
  TestContext,
  testBackend,
  testEmbedding,
} from '@test/support';

describe(`document ingestion (${testBackend()})`, () => {
  let ctx: TestContext;
  let server: EmbeddingsServer;
  let ingestion: DocumentIngestionService;
  let db: DataSource;
  let tenantId: string;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ dimensions: 64 });
    ctx = await startTestContext([DocumentsModule], {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: 'test-embed',
      EMBEDDINGS_DIMENSIONS: '64',
      EMBEDDINGS_BATCH_SIZE: '8',
      EMBEDDINGS_MAX_RETRIES: '0',
      EMBEDDINGS_RETRY_BASE_MS: '10',
      DOCUMENTS_CHUNK_TARGET_CHARS: '300',
      DOCUMENTS_CHUNK_OVERLAP_CHARS: '50',
      DOCUMENTS_JOB_RETRY_BASE_SECONDS: '0',
      DOCUMENTS_JOB_MAX_ATTEMPTS: '2',
    });
    ingestion = ctx.get(DocumentIngestionService);
    db = ctx.get(DataSource);
    tenantId = (await ctx.get(AuthService).createTenant('ingest-test', 'Ingest test', undefined)).tenant.id;
  });
  afterAll(async () => {
    await ctx?.close();
    await server?.close();
  });

  const chunksOf = async (id: string) => (await ingestion.chunksOf(tenantId, id, 1000)).items;

  it('ingests every supported format into typed, located chunks', async () => {
    const inputs = [
      { filename: 'notes.txt', content: 'First paragraph about disks.\n\nSecond paragraph about memory.' },
      {
        filename: 'guide.md',
        content:
          '# Guide\n\nIntro.\n\n## Steps\n\n- one\n- two\n\n| k | v |\n|---|---|\n| a | 1 |\n\n![Network map](map.png)',
      },
      {
        filename: 'page.html',
        content:
          '<h1>Status page</h1><p>All systems go.</p><ul><li>api</li></ul><img alt="uptime graph" src="x.png">',
      },
      { filename: 'hosts.csv', content: 'host,state\nweb-1,up\nweb-2,down\n' },
      {
        filename: 'report.pdf',
        content: await makePdf(['Page one talks about backups.', 'Page two talks about restores.']),
      },
      { filename: 'runbook.docx', content: await makeDocx() },
      { filename: 'review.pptx', content: await makePptx() },
      {
        filename: 'inventory.xlsx',
        content: await makeXlsx({
          Servers: [
            ['name', 'rack'],
            ['db-1', 'r1'],
          ],
          Owners: [
            ['team', 'lead'],
            ['sre', 'kim'],
          ],
        }),
      },
    ];
    const created = [];
    for (const input of inputs) created.push(await ingestion.create(tenantId, input));
    expect(created.every((d) => d.status === 'queued')).toBe(true);
    await ingestion.processQueue();

    const byName = new Map<string, Awaited<ReturnType<typeof chunksOf>>>();
    for (const doc of created) {
      const view = await ingestion.get(tenantId, doc.id);
      expect({ name: view.filename, status: view.status, error: view.error_details }).toEqual({
        name: doc.filename,
        status: 'done',
        error: null,
      });
      expect(view.total_chunks).toBeGreaterThan(0);
      expect(view.processing_progress).toBe(100);
      byName.set(doc.filename, await chunksOf(doc.id));
    }
    const md = byName.get('guide.md')!;
    expect(md.some((c) => c.chunk_type === 'table' && c.table_data?.header.join() === 'k,v')).toBe(true);
    expect(md.some((c) => c.text.includes('Network map') && ['image', 'mixed'].includes(c.chunk_type))).toBe(
      true,
    );
    expect(byName.get('page.html')!.some((c) => c.text.includes('uptime graph'))).toBe(true);
    expect(byName.get('hosts.csv')![0]).toMatchObject({
      chunk_type: 'table',
      table_data: { header: ['host', 'state'] },
    });
    const pdf = byName.get('report.pdf')!;
    expect(pdf.map((c) => c.page_number)).toEqual([1, 2]);
    expect(pdf[1].text).toContain('restores');
    const docx = byName.get('runbook.docx')!;
    expect(docx.some((c) => c.text.includes('Promote the replica'))).toBe(true);
    expect(docx.some((c) => c.chunk_type === 'table' && c.text.includes('Owner: dba-team'))).toBe(true);
    expect(docx.some((c) => c.text.includes('Replication topology diagram'))).toBe(true);
    const pptx = byName.get('review.pptx')!;
    expect(pptx.find((c) => c.text.includes('checkout service'))?.slide_number).toBe(1);
    expect(pptx.some((c) => c.text.includes('cache stampede'))).toBe(true);
    expect(
      pptx.some(
        (c) => c.slide_number === 2 && c.chunk_type === 'table' && c.text.includes('circuit breaker'),
      ),
    ).toBe(true);
    expect(pptx.some((c) => c.slide_number === 2 && c.text.includes('Error budget burn chart'))).toBe(true);
    const xlsx = byName.get('inventory.xlsx')!.filter((c) => c.chunk_type === 'table');
    expect(xlsx.map((c) => c.table_data?.sheet)).toEqual(['Servers', 'Owners']);
    for (const chunks of byName.values()) {
      expect(chunks.map((c) => c.chunk_index)).toEqual(chunks.map((_, i) => i));
      expect(chunks.every((c) => c.embedding_models.includes('test-embed'))).toBe(true);
    }
  });

  it('re-ingesting unchanged content makes no embedding calls; changed content re-embeds only changed chunks', async () => {
    const sections = Array.from(
      { length: 6 },
      (_, i) => `## Section ${i}\n\nBody of section ${i} with its own words.`,
    );
    const doc = await ingestion.create(tenantId, { filename: 'sections.md', content: sections.join('\n\n') });
    await ingestion.processQueue();
    const before = await chunksOf(doc.id);
    expect(before.length).toBe(6);
    expect(before[0].chunk_version).toBe(1);

    const calls = server.embeddedTexts();
    const same = await ingestion.update(tenantId, doc.id, {
      filename: 'sections.md',
      content: sections.join('\n\n'),
    });
    expect(same.queued).toBe(false);
    const again = await ingestion.upsertByFilename(tenantId, {
      filename: 'sections.md',
      content: sections.join('\n\n'),
    });
    expect(again.queued).toBe(false);
    await ingestion.processQueue();
    expect(server.embeddedTexts()).toBe(calls);

    sections[2] = '## Section 2\n\nCompletely rewritten body about failover.';
    const changed = await ingestion.update(tenantId, doc.id, {
      filename: 'sections.md',
      content: sections.join('\n\n'),
    });
    expect(changed.queued).toBe(true);
    await ingestion.processQueue();
    expect(server.embeddedTexts() - calls).toBe(1);
    const after = await chunksOf(doc.id);
    expect(after.every((c) => c.chunk_version === 2)).toBe(true);
    expect(after[2].text).toContain('failover');
    expect(after.filter((c, i) => c.source_hash === before[i].source_hash)).toHaveLength(5);
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM document_chunks WHERE document_id = $1`,
      [doc.id],
    );
    expect(count).toBe(6);
    expect((await ingestion.get(tenantId, doc.id)).chunk_version).toBe(2);
  });

  it('stores each vector exactly as embedded, sent as binary parameters', async () => {
    const content = Array.from(
      { length: 20 },
      (_, i) => `## Part ${i}\n\nNotes on subsystem ${i} and its alarms.`,
    );
    const doc = await ingestion.create(tenantId, { filename: 'parts.md', content: content.join('\n\n') });
    await ingestion.processQueue();
    const chunks = await chunksOf(doc.id);
    expect(chunks).toHaveLength(20);
    const stored: Array<{ chunk_id: string; embedding: string }> = await db.query(
      `SELECT chunk_id, embedding::text AS embedding FROM chunk_embeddings WHERE chunk_id = ANY($1::uuid[])`,
      [chunks.map((c) => c.chunk_id)],
    );
    const byId = new Map(stored.map((r) => [r.chunk_id, JSON.parse(r.embedding) as number[]]));
    for (const chunk of chunks) {
      const expected = testEmbedding(chunk.text, 64);
      const actual = byId.get(chunk.chunk_id)!;
      expect(actual).toHaveLength(64);
      actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i], 5));
    }
    // The same vectors stored again through the repository under other model names come back equal.
    const repository = ctx.get(ChunksRepository);
    await db.transaction(async (em) => {
      for (const model of ['copy-a', 'copy-b', 'copy-c'])
        await repository.insertVectors(
          em,
          tenantId,
          model,
          chunks.map((c) => ({ chunkId: c.chunk_id, vector: testEmbedding(c.text, 64) })),
        );
    });
    const [{ count, differing }] = await db.query(
      `SELECT count(*)::int AS count,
              count(*) FILTER (WHERE c.embedding::text <> o.embedding::text)::int AS differing
       FROM chunk_embeddings c JOIN chunk_embeddings o ON o.chunk_id = c.chunk_id AND o.model = 'test-embed'
       WHERE c.model LIKE 'copy-%'`,
    );
    expect(count).toBe(60);
    expect(differing).toBe(0);
    await db.query(`DELETE FROM chunk_embeddings WHERE model LIKE 'copy-%'`);
  });

  it('accepts corrupt and password-protected files, then fails them with error_details, without retrying', async () => {
    const bad = [
      { filename: 'broken.pdf', content: Buffer.from('%PDF-1.7 this is not really a pdf') },
      { filename: 'locked.pdf', content: await makePdf(['secret'], { password: 'pw' }) },
      { filename: 'locked.xlsx', content: await makeEncryptedXlsx() },
      { filename: 'truncated.docx', content: (await makeDocx()).subarray(0, 200) },
      { filename: 'latin1.txt', content: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff]) },
    ];
    const docs = [];
    for (const input of bad) docs.push(await ingestion.create(tenantId, input));
    await ingestion.processQueue();
    const codes: Record<string, string> = {};
    for (const doc of docs) {
      const view = await ingestion.get(tenantId, doc.id);
      expect(view.status).toBe('failed');
      expect(view.error_details).toMatchObject({ retryable: false, attempts: 1 });
      codes[view.filename] = view.error_details!.code;
    }
    expect(codes).toEqual({
      'broken.pdf': 'DOCUMENT_CORRUPT',
      'locked.pdf': 'DOCUMENT_ENCRYPTED',
      'locked.xlsx': 'DOCUMENT_ENCRYPTED',
      'truncated.docx': 'DOCUMENT_CORRUPT',
      'latin1.txt': 'DOCUMENT_CORRUPT',
    });
  });

  it('retries a failing embedding call with backoff and fails after N attempts; the queue keeps moving', async () => {
    server.failWhenInputContains('broken embedder', 500);
    const poison = await ingestion.create(tenantId, {
      filename: 'poison.txt',
      content: 'this one meets a broken embedder',
    });
    const healthy = await ingestion.create(tenantId, {
      filename: 'healthy.txt',
      content: 'this one is fine',
    });
    await ingestion.processQueue();
    server.failWhenInputContains(null);
    const failed = await ingestion.get(tenantId, poison.id);
    expect(failed.status).toBe('failed');
    expect(failed.error_details).toMatchObject({ code: 'EMBEDDINGS_FAILED', attempts: 2, retryable: true });
    expect((await ingestion.get(tenantId, healthy.id)).status).toBe('done');
    const [job] = await db.query(`SELECT status, attempts, error FROM document_jobs WHERE document_id = $1`, [
      poison.id,
    ]);
    expect(job).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: { code: 'EMBEDDINGS_FAILED', attempts: 2 },
    });
  });

  it('recovers jobs whose worker died, and fails them once out of attempts', async () => {
    const doc = await ingestion.create(tenantId, {
      filename: 'orphan.txt',
      content: 'the worker died on this one',
    });
    await db.query(
      `UPDATE document_jobs SET status = 'running', attempts = 1, locked_by = 'dead-worker', lease_expires_at = now() - interval '1 minute' WHERE document_id = $1`,
      [doc.id],
    );
    const maintenance = ctx.get(DocumentMaintenanceService);
    expect((await maintenance.recover()).requeued).toBe(1);
    await ingestion.processQueue();
    expect((await ingestion.get(tenantId, doc.id)).status).toBe('done');

    const crashy = await ingestion.create(tenantId, {
      filename: 'crashy.txt',
      content: 'kills its worker every time',
    });
    await db.query(
      `UPDATE document_jobs SET status = 'running', attempts = 2, locked_by = 'dead-worker', lease_expires_at = now() - interval '1 minute' WHERE document_id = $1`,
      [crashy.id],
    );
    expect((await maintenance.recover()).failed).toBe(1);
    expect((await ingestion.get(tenantId, crashy.id)).error_details).toMatchObject({ code: 'LEASE_EXPIRED' });
  });

  it('soft-deletes and restores; cleanup purges old deleted documents and old finished jobs', async () => {
    const doc = await ingestion.create(tenantId, { filename: 'old.txt', content: 'to be purged' });
    await ingestion.processQueue();
    expect((await ingestion.remove(tenantId, doc.id)).deleted_at).not.toBeNull();
    expect((await ingestion.list(tenantId, { filename: 'old.txt' })).total).toBe(0);
    expect((await ingestion.list(tenantId, { filename: 'old.txt', includeDeleted: true })).total).toBe(1);
    expect((await ingestion.restore(tenantId, doc.id)).deleted_at).toBeNull();
    await ingestion.remove(tenantId, doc.id);
    const maintenance = ctx.get(DocumentMaintenanceService);
    expect((await maintenance.cleanup()).documents).toBe(0);
    const result = await maintenance.cleanup(new Date(Date.now() + 31 * 86_400_000));
    expect(result.documents).toBe(1);
    expect(result.jobs).toBeGreaterThan(0);
    await expect(ingestion.get(tenantId, doc.id)).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
  });

  it('lists with filters and pagination', async () => {
    await ingestion.create(tenantId, {
      filename: 'tagged.md',
      content: '# Tagged',
      metadata: { team: 'sre', tier: 1 },
    });
    await ingestion.processQueue();
    const page = await ingestion.list(tenantId, {
      metadata: { team: 'sre' },
      format: 'markdown',
      status: 'done',
    });
    expect(page.items.map((d) => d.filename)).toEqual(['tagged.md']);
    const small = await ingestion.list(tenantId, { limit: 2, offset: 1 });
    expect(small.items).toHaveLength(2);
    expect(small.total).toBeGreaterThan(3);
  });
});
