import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import {
  DocumentIngestionService,
  DocumentSearchService,
  EmbeddingProviders,
  toIndexText,
  type DocumentSearchRequest,
  type DocumentSearchResult,
} from '@app/documents';
import { AuthService, type CacheBackend, CacheStore, runAsSystem, runAsTenant } from '@app/platform';
import { createApp } from '../apps/api/src/bootstrap';
import { validateEnvironment } from '../apps/api/src/config-schemas';
import { Backend, flag, loadAverage, prepareBackend } from './support/bench-app';
import { seedSyntheticChunks, sentencePool, syntheticChunks } from './support/synthetic-corpus';
import { EvaluationDataMissing } from './retrieval/datasets';

interface Latencies {
  p50: number;
  p95: number;
  p99: number;
  rps: number;
}

type Row = { backend: Backend; chunks: number; what: string; concurrency: number; side: string } & Latencies;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** Runs `requests` calls of `call` with `concurrency` workers; latency of each call and overall rate. */
async function measure(
  requests: number,
  concurrency: number,
  call: (i: number) => Promise<void>,
): Promise<Latencies> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        const t = performance.now();
        await call(i);
        times.push(performance.now() - t);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    rps: requests / wall,
  };
}

/** The seed's design: two separate branch queries with top_k*2 each, fused with RRF in application code. */
async function twoQueryBaseline(
  search: DocumentSearchService,
  tenantId: string,
  query: string,
  topK: number,
  k = 60,
) {
  const [text, vector] = await Promise.all([
    search.search(tenantId, { query, search_type: 'text', top_k: topK * 2 }),
    search.search(tenantId, { query, search_type: 'vector', top_k: topK * 2 }),
  ]);
  const fused = new Map<string, { result: DocumentSearchResult; score: number }>();
  for (const list of [text.results, vector.results]) {
    list.forEach((result, i) => {
      const entry = fused.get(result.chunk_id) ?? { result, score: 0 };
      entry.score += 1 / (k + i + 1);
      fused.set(result.chunk_id, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, topK);
}

interface Booted {
  app: NestExpressApplication;
  url: string;
}

async function boot(cacheTtl: number): Promise<Booted> {
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = String(cacheTtl);
  // The bench drains the queue itself; an idle poller would only add concurrent queries to PGlite.
  process.env.DOCUMENTS_WORKER_CONCURRENCY = '0';
  const env = validateEnvironment(process.env);
  const app = await createApp({ env });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/**
 * The tenant to measure: with BENCH_REUSE_DATABASE (native) or BENCH_DATA_DIR (embedded), a bench
 * tenant of a kept database that already
 * holds exactly `chunks` searchable chunks (seeding 100k chunks takes minutes); otherwise a new
 * tenant seeded through the bulk fast path.
 */
async function benchTenant(
  app: NestExpressApplication,
  chunks: number,
  sentences: string[],
  backend: Backend,
): Promise<{ tenant: { id: string }; secret: string }> {
  return runAsSystem('bench: create and seed the bench tenant', () =>
    seedBenchTenant(app, chunks, sentences, backend),
  );
}

async function seedBenchTenant(
  app: NestExpressApplication,
  chunks: number,
  sentences: string[],
  backend: Backend,
): Promise<{ tenant: { id: string }; secret: string }> {
  const auth = app.get(AuthService);
  const ds = app.get(DataSource);
  if (process.env.BENCH_REUSE_DATABASE || process.env.BENCH_DATA_DIR) {
    const [kept]: Array<{ id: string }> = await ds.query(
      `SELECT t.id FROM tenants t JOIN document_corpus n ON n.tenant_id = t.id
       WHERE t.slug LIKE 'bench-%' AND n.chunk_count = $1 ORDER BY t.created_at DESC LIMIT 1`,
      [chunks],
    );
    if (kept) {
      const { secret } = await auth.createKey(kept.id, { name: 'bench', role: 'admin' }, undefined);
      console.error(`[${backend}] reusing tenant ${kept.id} with ${chunks} chunks`);
      return { tenant: kept, secret };
    }
  }
  const slug = `bench-${Date.now().toString(36)}`;
  const { tenant, secret } = await auth.createTenant(slug, slug, undefined);
  const seeded = await seedSyntheticChunks(
    ds,
    app.get(DocumentIngestionService),
    app.get(EmbeddingProviders),
    tenant.id,
    syntheticChunks(chunks, sentences),
    toIndexText,
  );
  console.error(`[${backend}] seeded ${chunks} chunks in ${seeded.seconds.toFixed(1)} s (bulk fast path)`);
  return { tenant, secret };
}

/** Sets the cache the next boot uses: in-process, or Redis under a key prefix of its own. */
function useCache(cache: CacheBackend, redisUrl: string): void {
  process.env.REDIS_URL = cache === 'redis' ? redisUrl : '';
  process.env.CACHE_KEY_PREFIX = `bench:${Date.now().toString(36)}:`;
}

/** Computes and caches every query's embedding, so measured searches start from a cached vector. */
async function primeQueryEmbeddings(search: DocumentSearchService, tenantId: string, queries: string[]) {
  let found = 0;
  for (const query of queries) {
    const response = await runAsTenant(tenantId, () =>
      search.search(tenantId, { query, search_type: 'vector', top_k: 1 }),
    );
    found += response.results.length;
  }
  // Timing searches that find nothing (a tenant scope that sees no rows) would measure nothing.
  if (found === 0)
    throw new Error('the bench queries found no chunks: the search does not see the seeded tenant');
}

/**
 * What the store costs at this size (issue 28's memory figures): each table (with its TOAST: the vectors)
 * and index of the search path on disk, per chunk, and this process's RSS after the searches (the app in process, as the API runs it).
 */
async function storageReport(ds: DataSource, chunks: number): Promise<void> {
  const relations: Array<{ name: string; kind: string; bytes: string }> = await ds.query(
    `SELECT c.relname AS name, c.relkind AS kind,
       CASE c.relkind WHEN 'r' THEN pg_table_size(c.oid) ELSE pg_relation_size(c.oid) END AS bytes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')
       AND (c.relname IN ('document_chunks', 'chunk_embeddings')
         OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN
           ('document_chunks'::regclass, 'chunk_embeddings'::regclass)))
     ORDER BY 3 DESC`,
  );
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.error(`storage at ${chunks} chunks (relation, MB, bytes per chunk):`);
  for (const r of relations.filter((r) => Number(r.bytes) > 0))
    console.error(
      `  ${r.kind === 'r' ? 'table' : 'index'} ${r.name}: ${mb(Number(r.bytes))} MB, ${(Number(r.bytes) / chunks).toFixed(0)} B/chunk`,
    );
  const total = relations.reduce((sum, r) => sum + Number(r.bytes), 0);
  console.error(
    `  total ${mb(total)} MB, ${(total / chunks).toFixed(0)} B/chunk; process RSS ${mb(process.memoryUsage().rss)} MB`,
  );
}

async function searchScenario(
  backend: Backend,
  chunks: number,
  opts: { requests: number; concurrency: number[]; topK: number; caches: CacheBackend[]; redisUrl: string },
): Promise<Row[]> {
  const cleanup = await prepareBackend(backend, `bench_${chunks}`);
  const rows: Row[] = [];
  try {
    const { sentences, queries } = sentencePool();
    let booted = await boot(0);
    const { tenant, secret } = await benchTenant(booted.app, chunks, sentences, backend);
    const add = (what: string, concurrency: number, side: string, l: Latencies) =>
      rows.push({ backend, chunks, what, concurrency, side, ...l });
    const http = async (url: string, body: DocumentSearchRequest) => {
      const response = await fetch(`${url}/api/documents/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`search answered ${response.status}: ${await response.text()}`);
      await response.json();
    };
    const request = (i: number, type: 'text' | 'vector' | 'hybrid'): DocumentSearchRequest => ({
      query: queries[i % queries.length],
      search_type: type,
      top_k: opts.topK,
    });
    let search = booted.app.get(DocumentSearchService);
    // Query embeddings cached, as the target states; results are not (cache TTL 0 on this boot).
    await primeQueryEmbeddings(search, tenant.id, queries);
    for (const type of ['text', 'vector', 'hybrid'] as const) {
      for (const c of opts.concurrency) {
        add(
          type,
          c,
          'server',
          await measure(
            opts.requests,
            c,
            async (i) =>
              void (await runAsTenant(tenant.id, () => search.search(tenant.id, request(i, type)))),
          ),
        );
        add(type, c, 'http', await measure(opts.requests, c, (i) => http(booted.url, request(i, type))));
      }
    }
    for (const c of opts.concurrency) {
      add(
        'two-query baseline',
        c,
        'server',
        await measure(opts.requests, c, async (i) => {
          await runAsTenant(tenant.id, () =>
            twoQueryBaseline(search, tenant.id, queries[i % queries.length], opts.topK),
          );
        }),
      );
    }
    await storageReport(booted.app.get(DataSource), chunks);
    await booted.app.close();
    const uncachedRedisUrl = process.env.REDIS_URL;
    for (const cache of opts.caches) {
      useCache(cache, opts.redisUrl);
      booted = await boot(300);
      const health = booted.app.get(CacheStore).health();
      if (health.backend !== cache || !health.available)
        throw new Error(`the ${cache} cache is not available: ${health.lastError ?? health.backend}`);
      search = booted.app.get(DocumentSearchService);
      for (let i = 0; i < queries.length; i++)
        await runAsTenant(tenant.id, () => search.search(tenant.id, request(i, 'hybrid')));
      const what = `cache hit (hybrid, ${cache})`;
      for (const c of opts.concurrency) {
        add(
          what,
          c,
          'server',
          await measure(opts.requests, c, async (i) => {
            const response = await runAsTenant(tenant.id, () =>
              search.search(tenant.id, request(i, 'hybrid')),
            );
            if (!response.cached) throw new Error('expected a cache hit');
          }),
        );
        add(what, c, 'http', await measure(opts.requests, c, (i) => http(booted.url, request(i, 'hybrid'))));
      }
      await booted.app.close();
    }
    process.env.REDIS_URL = uncachedRedisUrl;
  } finally {
    await cleanup();
  }
  return rows;
}

/**
 * Every bench query once, one at a time, through DocumentSearchService (server side, query
 * embeddings cached, result cache off): p50/p95 and the slowest queries, for profiling one search type.
 */
async function queriesScenario(backend: Backend, chunks: number, type: 'text' | 'vector' | 'hybrid') {
  const cleanup = await prepareBackend(backend, `bench_${chunks}`);
  try {
    const { sentences, queries } = sentencePool();
    const { app } = await boot(0);
    const { tenant } = await benchTenant(app, chunks, sentences, backend);
    const search = app.get(DocumentSearchService);
    await primeQueryEmbeddings(search, tenant.id, queries);
    const timed: Array<[number, string]> = [];
    for (const query of queries) {
      const started = performance.now();
      await runAsTenant(tenant.id, () => search.search(tenant.id, { query, search_type: type, top_k: 10 }));
      timed.push([performance.now() - started, query]);
    }
    await app.close();
    const sorted = timed.map(([ms]) => ms).sort((a, b) => a - b);
    console.log(
      `${backend} ${chunks} chunks, ${type}, ${queries.length} queries: p50 ${fmt(percentile(sorted, 50))} ms, p95 ${fmt(percentile(sorted, 95))} ms, max ${fmt(sorted[sorted.length - 1])} ms`,
    );
    for (const [ms, query] of timed.sort((a, b) => b[0] - a[0]).slice(0, 5))
      console.log(`  ${fmt(ms)} ms  ${query}`);
  } finally {
    await cleanup();
  }
}

async function ingestScenario(backend: Backend, chunks: number): Promise<string> {
  const cleanup = await prepareBackend(backend, `ingest_${chunks}`);
  try {
    process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
    const { app } = await boot(0);
    const ds = app.get(DataSource);
    const ingestion = app.get(DocumentIngestionService);
    const provider = app.get(EmbeddingProviders).configured;
    const slug = `ingest-${Date.now().toString(36)}`;
    const { tenant } = await runAsSystem('bench: create the ingest tenant', () =>
      app.get(AuthService).createTenant(slug, slug, undefined),
    );
    const texts = syntheticChunks(chunks, sentencePool().sentences, 7);
    const perDocument = 25;
    const started = performance.now();
    for (let i = 0; i < texts.length; i += perDocument) {
      await runAsTenant(tenant.id, () =>
        ingestion.create(tenant.id, {
          filename: `doc-${i}.txt`,
          content: texts.slice(i, i + perDocument).join('\n\n'),
        }),
      );
    }
    await ingestion.processQueue();
    const seconds = (performance.now() - started) / 1000;
    const stored: Array<{ text: string }> = await runAsTenant(tenant.id, () =>
      ds.query(`SELECT text FROM document_chunks WHERE tenant_id = $1 ORDER BY document_id, chunk_index`, [
        tenant.id,
      ]),
    );
    const batch = 64;
    const embedStarted = performance.now();
    for (let i = 0; i < stored.length; i += batch)
      await provider.embed(stored.slice(i, i + batch).map((r) => r.text));
    const embedSeconds = (performance.now() - embedStarted) / 1000;
    await app.close();
    const e2e = stored.length / seconds;
    const alone = stored.length / embedSeconds;
    return `| ${backend} | ${stored.length} | ${e2e.toFixed(0)} | ${alone.toFixed(0)} | ${((100 * e2e) / alone).toFixed(0)}% |`;
  } finally {
    await cleanup();
  }
}

const fmt = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

function printSearch(rows: Row[]) {
  console.log('| backend | chunks | search | concurrency | side | p50 ms | p95 ms | p99 ms | req/s |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.backend} | ${r.chunks} | ${r.what} | ${r.concurrency} | ${r.side} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${r.rps.toFixed(0)} |`,
    );
  }
}

/**
 * The targets per backend, size and concurrency: each search type's HTTP p95 minus its
 * server-side p95 (target <= 5 ms), and hybrid p95 over the slower branch's p95 alone (target <= 1.2).
 */
function printTargets(rows: Row[]) {
  console.log(
    '\n| backend | chunks | concurrency | http - server p95 ms (text / vector / hybrid) | hybrid p95 / slower branch p95 |',
  );
  console.log('|---|---|---|---|---|');
  const keys = new Set(rows.map((r) => `${r.backend}|${r.chunks}|${r.concurrency}`));
  for (const key of keys) {
    const [backend, chunks, concurrency] = key.split('|');
    const get = (what: string, side: string) =>
      rows.find(
        (r) =>
          r.backend === backend &&
          String(r.chunks) === chunks &&
          String(r.concurrency) === concurrency &&
          r.what === what &&
          r.side === side,
      );
    const gaps = (['text', 'vector', 'hybrid'] as const).map((what) => {
      const [http, server] = [get(what, 'http'), get(what, 'server')];
      return http && server ? fmt(http.p95 - server.p95) : '-';
    });
    const [text, vector, hybrid] = (['text', 'vector', 'hybrid'] as const).map((w) => get(w, 'server'));
    const ratio = text && vector && hybrid ? (hybrid.p95 / Math.max(text.p95, vector.p95)).toFixed(2) : '-';
    console.log(`| ${backend} | ${chunks} | ${concurrency} | ${gaps.join(' / ')} | ${ratio} |`);
  }
}

function printRatios(rows: Row[]) {
  {
    console.log('\n| chunks | search | concurrency | side | embedded/native p50 | embedded/native p95 |');
    console.log('|---|---|---|---|---|---|');
    for (const n of rows.filter((r) => r.backend === 'native')) {
      const e = rows.find(
        (r) =>
          r.backend === 'embedded' &&
          r.chunks === n.chunks &&
          r.what === n.what &&
          r.concurrency === n.concurrency &&
          r.side === n.side,
      );
      if (e)
        console.log(
          `| ${n.chunks} | ${n.what} | ${n.concurrency} | ${n.side} | ${(e.p50 / n.p50).toFixed(2)} | ${(e.p95 / n.p95).toFixed(2)} |`,
        );
    }
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const scenario = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'search';
  const backendArg = flag(argv, 'backend') ?? 'embedded';
  const backends: Backend[] = backendArg === 'both' ? ['native', 'embedded'] : [backendArg as Backend];
  const sizes = (flag(argv, 'chunks') ?? '10000').split(',').map(Number);
  const requests = Number(flag(argv, 'requests') ?? 200);
  const concurrency = (flag(argv, 'concurrency') ?? '1,8').split(',').map(Number);
  // `--cache none`: no cache-hit rows (shorter runs when only the uncached searches are compared).
  const cacheArg = flag(argv, 'cache') ?? 'memory';
  const caches = (cacheArg === 'none' ? [] : cacheArg.split(',')) as CacheBackend[];
  if (caches.some((c) => c !== 'memory' && c !== 'redis'))
    throw new Error(`--cache takes memory, redis or memory,redis, got ${caches.join(',')}`);
  const redisUrl = process.env.BENCH_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  process.env.LOG_LEVEL = 'warn';
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? '';
  console.log(`# npm run bench -- ${argv.join(' ')}`);
  console.log(
    `date ${new Date().toISOString()}, node ${process.version}, load average before: ${loadAverage()}\n`,
  );
  if (scenario === 'search') {
    const rows: Row[] = [];
    for (const chunks of sizes)
      for (const backend of backends) {
        const measured = await searchScenario(backend, chunks, {
          requests,
          concurrency,
          topK: 10,
          caches,
          redisUrl,
        });
        printSearch(measured);
        printTargets(measured);
        console.log('');
        rows.push(...measured);
      }
    if (backends.length === 2) printRatios(rows);
  } else if (scenario === 'ingest') {
    console.log('| backend | chunks | end to end chunks/s | embedder alone chunks/s | ratio |');
    console.log('|---|---|---|---|---|');
    for (const chunks of sizes)
      for (const backend of backends) console.log(await ingestScenario(backend, chunks));
  } else if (scenario === 'queries') {
    const type = (flag(argv, 'type') ?? 'hybrid') as 'text' | 'vector' | 'hybrid';
    for (const chunks of sizes) for (const backend of backends) await queriesScenario(backend, chunks, type);
  } else {
    throw new Error(`unknown scenario ${scenario} (search | ingest | queries)`);
  }
  console.log(`\nload average after: ${loadAverage()}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    // Missing evaluation data is a setup step, not a crash: its message says where the data goes.
    console.error(error instanceof EvaluationDataMissing ? error.message : error);
    process.exit(1);
  },
);
