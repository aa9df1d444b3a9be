import { AuthService, CacheStore, ChangePropagation } from '@app/platform';
import { DocumentIngestionService, DocumentSearchService, DocumentsModule } from '@app/documents';
import { SearchRepository } from '@app/documents/testing';
import Redis from 'ioredis';
import { freePort, sleep, startRedisServer, startTestContext, TestContext, testBackend } from '@test/support';

const DOCS = {
  'rotation.md': '# Certificate rotation\n\nRotate the gateway certificates every ninety days.',
  'failover.md': '# Database failover\n\nPromote the replica, then repoint the connection pooler.',
};
const QUERY = { query: 'gateway certificate rotation', top_k: 5 };
const versionKey = (tenantId: string) => `documents:search-version:${tenantId}`;
const nativeOnly = testBackend() === 'native' ? it : it.skip;

async function seedTenant(ctx: TestContext, slug: string): Promise<{ tenantId: string; ids: string[] }> {
  const tenantId = (await ctx.get(AuthService).createTenant(slug, slug, undefined)).tenant.id;
  const ingestion = ctx.get(DocumentIngestionService);
  const ids: string[] = [];
  for (const [filename, content] of Object.entries(DOCS))
    ids.push((await ingestion.create(tenantId, { filename, content })).id);
  await ingestion.processQueue();
  return { tenantId, ids };
}

/**
 * Calls per command a Redis server has run (its command statistics). Commands a script runs count
 * under their own names (a GET inside EVALSHA adds to `get`), so a client's own calls are the scripts
 * and the commands no script of the cache uses (SET, DEL).
 */
async function commandsRun(port: number): Promise<Record<string, number>> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    const stats = await client.info('commandstats');
    return Object.fromEntries(
      [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, calls]) => [name, Number(calls)]),
    );
  } finally {
    client.disconnect();
  }
}

describe(`search result cache (${testBackend()})`, () => {
  let ctx: TestContext;
  let search: DocumentSearchService;
  let ingestion: DocumentIngestionService;
  let cache: CacheStore;

  beforeAll(async () => {
    ctx = await startTestContext([DocumentsModule]);
    search = ctx.get(DocumentSearchService);
    ingestion = ctx.get(DocumentIngestionService);
    cache = ctx.get(CacheStore);
  });
  afterAll(() => ctx?.close());

  it('answers a repeated search from the cache', async () => {
    const { tenantId } = await seedTenant(ctx, 'cache-hit');
    const first = await search.search(tenantId, QUERY);
    expect(first.cached).toBe(false);
    expect(first.results[0].document_name).toBe('rotation.md');
    const second = await search.search(tenantId, QUERY);
    expect(second.cached).toBe(true);
    expect({ ...second, cached: false, execution_time_ms: 0 }).toEqual({ ...first, execution_time_ms: 0 });
    expect(typeof (await cache.get(versionKey(tenantId)))).toBe('string');
  });

  it('replaces the tenant version on a document change, so the next search is fresh', async () => {
    const { tenantId, ids } = await seedTenant(ctx, 'cache-change');
    await search.search(tenantId, QUERY);
    expect((await search.search(tenantId, QUERY)).cached).toBe(true);
    const before = await cache.get<string>(versionKey(tenantId));

    await ingestion.remove(tenantId, ids[0]);
    const afterRemove = await search.search(tenantId, QUERY);
    expect(afterRemove.cached).toBe(false);
    expect(afterRemove.results.map((r) => r.document_id)).not.toContain(ids[0]);
    const after = await cache.get<string>(versionKey(tenantId));
    expect(typeof after).toBe('string');
    expect(after).not.toBe(before);

    const added = await ingestion.create(tenantId, {
      filename: 'renewal.md',
      content: '# Gateway certificate rotation\n\nRenewal and rotation of gateway certificates.',
    });
    await ingestion.processQueue();
    const afterAdd = await search.search(tenantId, QUERY);
    expect(afterAdd.cached).toBe(false);
    expect(afterAdd.results[0].document_id).toBe(added.id);
  });

  it('stores a result computed across a change where no later search looks', async () => {
    const { tenantId, ids } = await seedTenant(ctx, 'cache-race');
    const repository = ctx.get(SearchRepository);
    const original = repository.search.bind(repository);
    // The change commits after the search read the database and before its result is cached.
    const spy = jest.spyOn(repository, 'search').mockImplementationOnce(async (plan, ...rest) => {
      const rows = await original(plan, ...rest);
      await ingestion.remove(tenantId, ids[0]);
      return rows;
    });
    try {
      const racing = await search.search(tenantId, QUERY);
      expect(racing.results.map((r) => r.document_id)).toContain(ids[0]);
    } finally {
      spy.mockRestore();
    }
    const next = await search.search(tenantId, QUERY);
    expect(next.cached).toBe(false);
    expect(next.results.map((r) => r.document_id)).not.toContain(ids[0]);
  });

  it('misses rather than serving a stale hit when the version is lost', async () => {
    const { tenantId } = await seedTenant(ctx, 'cache-lost');
    await search.search(tenantId, QUERY);
    expect((await search.search(tenantId, QUERY)).cached).toBe(true);
    await cache.delete(versionKey(tenantId));
    const afterLoss = await search.search(tenantId, QUERY);
    expect(afterLoss.cached).toBe(false);
    expect(afterLoss.results[0].document_name).toBe('rotation.md');
    expect((await search.search(tenantId, QUERY)).cached).toBe(true);
  });

  it('does not cache when the TTL is 0', async () => {
    const uncached = await startTestContext([DocumentsModule], { DOCUMENTS_SEARCH_CACHE_TTL_SECONDS: '0' });
    try {
      const { tenantId } = await seedTenant(uncached, 'cache-off');
      const service = uncached.get(DocumentSearchService);
      expect((await service.search(tenantId, QUERY)).cached).toBe(false);
      expect((await service.search(tenantId, QUERY)).cached).toBe(false);
    } finally {
      await uncached.close();
    }
  });

  nativeOnly('shows a change made by one instance to another sharing Redis', async () => {
    const other = await startTestContext([DocumentsModule], {}, ctx.database);
    try {
      const { tenantId, ids } = await seedTenant(ctx, 'cache-shared');
      const otherSearch = other.get(DocumentSearchService);
      expect((await otherSearch.search(tenantId, QUERY)).cached).toBe(false);
      expect((await otherSearch.search(tenantId, QUERY)).cached).toBe(true);
      expect((await search.search(tenantId, QUERY)).cached).toBe(true);
      const before = await other.get(CacheStore).get<string>(versionKey(tenantId));

      await ingestion.remove(tenantId, ids[0]);
      // Read through the changing instance's connection, so its replacement has reached Redis.
      const replaced = await cache.get<string>(versionKey(tenantId));
      expect(replaced).not.toBe(before);
      expect(await other.get(CacheStore).get<string>(versionKey(tenantId))).toBe(replaced);

      const after = await otherSearch.search(tenantId, QUERY);
      expect(after.cached).toBe(false);
      expect(after.results.map((r) => r.document_id)).not.toContain(ids[0]);
    } finally {
      await other.close();
    }
  });

  it('pays one Redis command timeout in all while Redis is frozen, not one per cache call', async () => {
    const port = await freePort();
    const redis = await startRedisServer(port);
    const withRedis = await startTestContext([DocumentsModule], {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_COMMAND_TIMEOUT_MS: '200',
      // No probe during the test: what is sent while frozen is the searches' own commands.
      REDIS_CIRCUIT_COOLDOWN_MS: '600000',
    });
    try {
      const { tenantId } = await seedTenant(withRedis, 'cache-redis-frozen');
      const service = withRedis.get(DocumentSearchService);
      const first = await service.search(tenantId, QUERY);
      expect((await service.search(tenantId, QUERY)).cached).toBe(true);
      const before = await commandsRun(port);

      redis.kill('SIGSTOP');
      try {
        for (const query of [QUERY, { ...QUERY, top_k: 3 }, QUERY]) {
          const frozen = await service.search(tenantId, query);
          expect(frozen.cached).toBe(false);
          expect(frozen.results.length).toBeGreaterThan(0);
        }
        expect(withRedis.get(CacheStore).health().available).toBe(false);
      } finally {
        redis.kill('SIGCONT');
      }
      // The frozen server runs what was sent to it once it resumes: one script call (the first
      // search's cache read, whose timeout it paid) and no write; the rest was skipped.
      const after = await commandsRun(port);
      const sent = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
      expect(sent('evalsha') + sent('eval')).toBe(1);
      expect(sent('set') + sent('del')).toBe(0);
      expect(first.results.length).toBeGreaterThan(0);
    } finally {
      await withRedis.close();
      redis.kill('SIGKILL');
    }
  });

  nativeOnly('replaces the search version dropped while Redis was skipped, once Redis is back', async () => {
    // While the circuit is open a document change's new search version is not written; the change
    // generations poll redoes it once the cache is back, or the old version would serve stale hits.
    const port = await freePort();
    const redis = await startRedisServer(port);
    const withRedis = await startTestContext([DocumentsModule], {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_COMMAND_TIMEOUT_MS: '200',
      REDIS_CIRCUIT_COOLDOWN_MS: '300',
    });
    try {
      const { tenantId, ids } = await seedTenant(withRedis, 'cache-redis-skipped');
      const service = withRedis.get(DocumentSearchService);
      const propagation = withRedis.get(ChangePropagation);
      const store = withRedis.get(CacheStore);
      await propagation.poll();
      expect((await service.search(tenantId, QUERY)).results.map((r) => r.document_id)).toContain(ids[0]);
      expect((await service.search(tenantId, QUERY)).cached).toBe(true);

      redis.kill('SIGSTOP');
      try {
        // The first cache call pays the timeout and opens the circuit; what follows is skipped.
        await service.search(tenantId, QUERY);
        await withRedis.get(DocumentIngestionService).remove(tenantId, ids[0]);
        await propagation.poll();
      } finally {
        redis.kill('SIGCONT');
      }
      // A cache call after the cool-down starts the probe that closes the circuit.
      for (let i = 0; i < 100 && !store.health().available; i++) {
        await store.get('probe');
        await sleep(100);
      }
      expect(store.health().available).toBe(true);
      await propagation.poll();
      const after = await service.search(tenantId, QUERY);
      expect(after.results.map((r) => r.document_id)).not.toContain(ids[0]);
    } finally {
      await withRedis.close();
      redis.kill('SIGKILL');
    }
  });

  it('still answers, uncached, when Redis goes away', async () => {
    const port = await freePort();
    const redis = await startRedisServer(port);
    const withRedis = await startTestContext([DocumentsModule], {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_COMMAND_TIMEOUT_MS: '200',
    });
    try {
      const { tenantId, ids } = await seedTenant(withRedis, 'cache-redis-down');
      const service = withRedis.get(DocumentSearchService);
      expect(withRedis.get(CacheStore).backend).toBe('redis');
      const first = await service.search(tenantId, QUERY);
      expect((await service.search(tenantId, QUERY)).cached).toBe(true);

      redis.kill('SIGKILL');
      await sleep(300);
      const down = await service.search(tenantId, QUERY);
      expect(down.cached).toBe(false);
      expect(down.results).toEqual(first.results);
      expect((await service.search(tenantId, QUERY)).cached).toBe(false);
      await withRedis.get(DocumentIngestionService).remove(tenantId, ids[0]);
      expect((await service.search(tenantId, QUERY)).results.map((r) => r.document_id)).not.toContain(ids[0]);
      expect(withRedis.get(CacheStore).health().available).toBe(false);
    } finally {
      await withRedis.close();
      redis.kill('SIGKILL');
    }
  });
});
