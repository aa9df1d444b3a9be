import { DataSource } from 'typeorm';
import { runAsTenant } from '@app/platform';
import {
  DocumentIngestionService,
  DocumentSearchService,
  EmbeddingProviders,
  INGESTION_STAGES,
} from '@app/documents';
import { Backend, flag, loadAverage, startBenchApp } from './support/bench-app';
import { sentencePool, syntheticChunks } from './support/synthetic-corpus';

/**
 * Bulk ingestion (issue 28): `npm run bench:bulk -- --backend native --base 10000 --chunks 100000`.
 *
 * 1. seeds `--base` chunks through the bulk path (the corpus searches run against);
 * 2. embedder alone: `embed()` over the bulk load's texts in batches of 64 (a sample of 5,000);
 * 3. idle search p95 (vector and hybrid, in-process, result cache off, query vectors cached);
 * 4. a bulk load of `--chunks` more (documents of 500 synthetic chunks, marked bulk, drained with the
 *    default two jobs at once, then the one index build) while one client searches back to back:
 *    the load's rate (chunks / wall time, index build included) against the embedder alone, and
 *    search p50/p95 during the load against idle.
 *
 * Searches run in the same process as the worker (as with APP_ROLE=all): its in-process embedder
 * and the searches share one event loop.
 */

const PER_DOCUMENT = 500;
const JOBS = Number(process.env.BENCH_BULK_JOBS ?? 2);
const SEARCH_DURING = process.env.BENCH_BULK_SEARCH !== '0';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

interface Stats {
  n: number;
  p50: number;
  p95: number;
}

const stats = (times: number[]): Stats => {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};

async function queue(ingestion: DocumentIngestionService, tenantId: string, texts: string[], prefix: string) {
  for (let i = 0; i < texts.length; i += PER_DOCUMENT)
    await ingestion.create(tenantId, {
      filename: `${prefix}-${i}.txt`,
      content: texts.slice(i, i + PER_DOCUMENT).join('\n\n'),
    });
  await ingestion.markQueuedBulk(tenantId);
}

async function chunkCount(ds: DataSource, tenantId: string): Promise<number> {
  const [row]: Array<{ n: number }> = await ds.query(
    `SELECT count(*)::int AS n FROM document_chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.tenant_id = $1 AND c.chunk_version = d.active_version AND d.status = 'done'`,
    [tenantId],
  );
  return row.n;
}

async function run(backend: Backend, base: number, chunks: number): Promise<void> {
  const bench = await startBenchApp(backend, `bulk_${chunks}`);
  try {
    await runAsTenant(bench.tenantId, async () => {
      const ingestion = bench.app.get(DocumentIngestionService);
      const search = bench.app.get(DocumentSearchService);
      const ds = bench.app.get(DataSource);
      const { sentences, queries } = sentencePool();
      const tenantId = bench.tenantId;

      const seedStarted = performance.now();
      await queue(ingestion, tenantId, syntheticChunks(base, sentences, 11), 'base');
      await ingestion.processQueue();
      await ingestion.completeBulkLoads();
      const seeded = await chunkCount(ds, tenantId);
      console.log(`seeded ${seeded} chunks in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

      const texts = syntheticChunks(chunks, sentences, 7);
      const provider = bench.app.get(EmbeddingProviders).configured;
      const sample = texts.slice(0, Math.min(5000, texts.length));
      const embedStarted = performance.now();
      for (let i = 0; i < sample.length; i += 64) await provider.embed(sample.slice(i, i + 64));
      const embedderAlone = sample.length / ((performance.now() - embedStarted) / 1000);

      let i = 0;
      const failures: string[] = [];
      const searchOnce = async (type: 'vector' | 'hybrid') => {
        const started = performance.now();
        await search
          .search(tenantId, { query: queries[i++ % queries.length], search_type: type, top_k: 10 })
          .catch((error: Error) => failures.push(`${type}: ${error.message}`));
        return performance.now() - started;
      };
      for (const query of queries) await search.search(tenantId, { query, search_type: 'vector', top_k: 1 });
      const idle = { vector: [] as number[], hybrid: [] as number[] };
      for (let n = 0; n < 200; n++) {
        idle.vector.push(await searchOnce('vector'));
        idle.hybrid.push(await searchOnce('hybrid'));
      }

      const loadBefore = loadAverage();
      await queue(ingestion, tenantId, texts, 'bulk');
      const during = { vector: [] as number[], hybrid: [] as number[] };
      let loading = true;
      const searching = (async () => {
        while (loading && SEARCH_DURING) {
          during.vector.push(await searchOnce('vector'));
          during.hybrid.push(await searchOnce('hybrid'));
        }
      })();
      const stagesBefore = ingestion.stageTimings();
      const started = performance.now();
      await ingestion.processQueue({ concurrency: JOBS });
      const loaded = performance.now();
      await ingestion.completeBulkLoads();
      const finished = performance.now();
      loading = false;
      await searching;
      const stagesAfter = ingestion.stageTimings();
      const ingested = (await chunkCount(ds, tenantId)) - seeded;
      console.log(`\n| stage (${JOBS} jobs at once: stages overlap) | ms per chunk |\n|---|---|`);
      for (const stage of INGESTION_STAGES)
        console.log(`| ${stage} | ${((stagesAfter[stage] - stagesBefore[stage]) / ingested).toFixed(3)} |`);
      console.log(`| wall | ${((finished - started) / ingested).toFixed(3)} |`);
      const rate = ingested / ((finished - started) / 1000);

      const row = (label: string, s: Stats) =>
        `| ${label} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p95.toFixed(1)} |`;
      console.log(
        `\n### ${backend}: bulk load of ${ingested} chunks onto ${seeded}, ${new Date().toISOString()}, load average ${loadBefore} -> ${loadAverage()}\n`,
      );
      console.log(`| | chunks/s |\n|---|---|`);
      console.log(`| embedder alone (${sample.length} texts, batches of 64) | ${embedderAlone.toFixed(0)} |`);
      console.log(
        `| bulk load, index build included | **${rate.toFixed(0)}** (${((100 * rate) / embedderAlone).toFixed(0)}% of the embedder) |`,
      );
      console.log(
        `| load phase / index build and publish | ${((loaded - started) / 1000).toFixed(1)} s / ${((finished - loaded) / 1000).toFixed(1)} s |`,
      );
      console.log(`\n| search (ms) | n | p50 | p95 |\n|---|---|---|---|`);
      console.log(row('vector idle', stats(idle.vector)));
      console.log(row('vector during the load', stats(during.vector)));
      console.log(row('hybrid idle', stats(idle.hybrid)));
      console.log(row('hybrid during the load', stats(during.hybrid)));
      const ratio = (k: 'vector' | 'hybrid') => (stats(during[k]).p95 / stats(idle[k]).p95).toFixed(2);
      if (failures.length > 0) console.log(`\n${failures.length} searches failed, first: ${failures[0]}`);
      console.log(`\np95 during / idle: vector ${ratio('vector')}x, hybrid ${ratio('hybrid')}x`);
    });
  } finally {
    await bench.close();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const backend = (flag(argv, 'backend') ?? 'native') as Backend;
  const chunks = Number(flag(argv, 'chunks') ?? 20000);
  const base = Number(flag(argv, 'base') ?? 5000);
  process.env.LOG_LEVEL = 'warn';
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? '';
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  process.env.DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT = '100000';
  process.env.DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT = String(16 * 1024 ** 3);
  process.env.DOCUMENTS_JOB_MAX_RUNNING_PER_TENANT = '0';
  console.log(`# npm run bench:bulk -- ${argv.join(' ')}`);
  console.log(`date ${new Date().toISOString()}, node ${process.version}, load average ${loadAverage()}`);
  await run(backend, base, chunks);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
