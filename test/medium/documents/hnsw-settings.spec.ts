import { DataSource } from 'typeorm';
import { AuthService } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import { startTestContext, TestContext, testBackend } from '@test/support';

/**
 * DOCUMENTS_SEARCH_HNSW_EF_SEARCH is the floor of the vector branch's `hnsw.ef_search`: a search
 * explores max(floor, candidates) graph entries, at most 1,000. The setting is a session's, so the
 * test reads it back from the connections the search used.
 */
describe(`the vector branch's ef_search (${testBackend()})`, () => {
  let ctx: TestContext;
  let db: DataSource;
  let search: DocumentSearchService;
  let tenant: string;

  beforeAll(async () => {
    ctx = await startTestContext([DocumentsModule], {
      DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0',
      DOCUMENTS_SEARCH_HNSW_EF_SEARCH: '321',
      DOCUMENTS_SEARCH_PARALLEL_BRANCHES: 'false',
    });
    db = ctx.get(DataSource);
    search = ctx.get(DocumentSearchService);
    const ingestion = ctx.get(DocumentIngestionService);
    tenant = (await ctx.get(AuthService).createTenant('hnsw-settings', 'H', undefined)).tenant.id;
    await ingestion.create(tenant, {
      filename: 'gateway.md',
      content: '# Gateway\n\nRestart the payment gateway by draining traffic before rolling pods.',
    });
    await ingestion.processQueue();
  });
  afterAll(() => ctx?.close());

  /**
   * `hnsw.ef_search` of every session the data source holds: the pooled connections on native (read
   * one after the other while no search runs), the one shared session on embedded.
   */
  async function efSearchSettings(): Promise<string[]> {
    if (testBackend() === 'embedded') {
      const [row] = await db.query<Array<{ ef: string }>>(
        `SELECT current_setting('hnsw.ef_search', true) AS ef`,
      );
      return [row.ef];
    }
    const pool = (
      db.driver as unknown as {
        master: { _clients: Array<{ query: (sql: string) => Promise<{ rows: Array<{ ef: string }> }> }> };
      }
    ).master;
    const settings: string[] = [];
    for (const client of pool._clients)
      settings.push((await client.query(`SELECT current_setting('hnsw.ef_search', true) AS ef`)).rows[0].ef);
    return settings;
  }

  it('explores the configured floor when it is above the candidates', async () => {
    const result = await search.search(tenant, {
      query: 'restart the payment gateway',
      search_type: 'vector',
      top_k: 5,
      candidates: 50,
    });
    expect(result.results.length).toBeGreaterThan(0);
    expect(await efSearchSettings()).toContain('321');
  });

  it('explores the candidates when they are above the floor, and never more than 1,000', async () => {
    await search.search(tenant, { query: 'drain traffic', search_type: 'vector', top_k: 5, candidates: 600 });
    expect(await efSearchSettings()).toContain('600');
    await search.search(tenant, { query: 'rolling pods', search_type: 'hybrid', top_k: 5, candidates: 2000 });
    expect(await efSearchSettings()).toContain('1000');
  });
});
