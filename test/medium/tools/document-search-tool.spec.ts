import { randomUUID } from 'node:crypto';
import { DocumentIngestionService } from '@app/documents';
import { AuthService } from '@app/platform';
import { ToolContext, ToolRegistry, ToolsModule } from '@app/tools';
import { startTestContext, TestContext, testBackend } from '@test/support';

const context = (tenantId: string): ToolContext => ({
  tenantId,
  userId: 'tester',
  requestId: randomUUID(),
  traceId: 'trace',
  deadline: Date.now() + 30_000,
  signal: new AbortController().signal,
});

describe(`document_search tool (${testBackend()})`, () => {
  let ctx: TestContext;
  let registry: ToolRegistry;
  let tenantA: string;
  let tenantB: string;

  beforeAll(async () => {
    ctx = await startTestContext([ToolsModule]);
    registry = ctx.get(ToolRegistry);
    const auth = ctx.get(AuthService);
    tenantA = (await auth.createTenant('docs-tool-a', 'A', undefined)).tenant.id;
    tenantB = (await auth.createTenant('docs-tool-b', 'B', undefined)).tenant.id;
    const ingestion = ctx.get(DocumentIngestionService);
    await ingestion.create(tenantA, {
      filename: 'payment-restart.md',
      content:
        '# Payment gateway restart\n\nDrain traffic from the payment gateway, then restart the pods one at a time.',
    });
    await ingestion.create(tenantA, {
      filename: 'db-backup.ko.md',
      content:
        '# 데이터베이스 백업 절차\n\n매일 밤 PostgreSQL 백업을 오브젝트 스토리지에 저장하고 일요일마다 복구를 검증합니다.',
    });
    await ingestion.create(tenantB, {
      filename: 'tenant-b-only.md',
      content: '# Payment gateway secrets\n\nTenant B keeps its payment gateway restart codes here.',
    });
    await ingestion.processQueue();
  });
  afterAll(() => ctx?.close());

  it('is a discovered built-in with the seed input schema (query required, defaults applied)', () => {
    const definition = registry.definition(tenantA, 'document_search');
    expect(definition).toMatchObject({ source: 'builtin', has_side_effects: false });
    expect(definition?.input_schema).toMatchObject({ required: ['query'] });
  });

  it.each(['hybrid', 'text', 'vector'] as const)(
    'finds the matching document (%s) and reports query and search_type',
    async (searchType) => {
      const result = await registry.execute(context(tenantA), 'document_search', {
        query: 'restart the payment gateway',
        search_type: searchType,
        top_k: 3,
      });
      expect(result.success).toBe(true);
      const data = result.data as { results: Array<Record<string, unknown>>; count: number };
      expect(data.count).toBe(data.results.length);
      expect(data.results[0]).toMatchObject({ document_name: 'payment-restart.md', chunk_type: 'text' });
      expect(typeof data.results[0].relevance_score).toBe('number');
      expect(result.metadata).toMatchObject({
        query: 'restart the payment gateway',
        search_type: searchType,
      });
    },
  );

  it('defaults to hybrid with top_k 10 and finds Korean text', async () => {
    const result = await registry.execute(context(tenantA), 'document_search', { query: '백업 복구 검증' });
    expect(result.success).toBe(true);
    expect(result.metadata.search_type).toBe('hybrid');
    const data = result.data as { results: Array<{ document_name: string }> };
    expect(data.results[0].document_name).toBe('db-backup.ko.md');
  });

  it("searches only the caller's tenant", async () => {
    const a = await registry.execute(context(tenantA), 'document_search', {
      query: 'payment gateway restart codes',
    });
    const b = await registry.execute(context(tenantB), 'document_search', {
      query: 'payment gateway restart codes',
    });
    const names = (r: typeof a) =>
      (r.data as { results: Array<{ document_name: string }> }).results.map((x) => x.document_name);
    expect(names(a)).not.toContain('tenant-b-only.md');
    expect(names(b)).toEqual(['tenant-b-only.md']);
  });

  it('refuses a tenant in the input and bad values as failed results, not exceptions', async () => {
    const smuggled = await registry.execute(context(tenantB), 'document_search', {
      query: 'payment',
      tenant_id: tenantA,
    });
    expect(smuggled).toMatchObject({ success: false, error_details: { code: 'INVALID_INPUT' } });
    const badType = await registry.execute(context(tenantA), 'document_search', {
      query: 'payment',
      search_type: 'fuzzy',
    });
    expect(badType).toMatchObject({ success: false, error_details: { code: 'INVALID_INPUT' } });
    const blank = await registry.execute(context(tenantA), 'document_search', { query: '   ' });
    expect(blank).toMatchObject({ success: false, error_details: { code: 'INVALID_INPUT' } });
  });
});
