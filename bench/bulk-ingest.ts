import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runAsTenant } from '@app/platform';
import {
  DocumentIngestionService,
  DocumentSearchService,
  DocumentsConfig,
  EmbeddingProviders,
  INGESTION_STAGES,
  type IngestionStageTimings,
} from '@app/documents';
import { BulkSegmentsRepository, modelIndexName } from '@app/documents/testing';
import { Backend, flag, loadAverage, startBenchApp } from './support/bench-app';
import { sentencePool, syntheticChunks } from './support/synthetic-corpus';

/**
 * Bulk ingestion (issue 28): `npm run bench:bulk -- --backend native --base 10000 --chunks 100000 [--worker-process]`.
 *
 * 1. seeds `--base` chunks through the bulk path (the corpus searches run against); with
 *    BENCH_REUSE_DATABASE=<db> (a database kept by `BENCH_KEEP_DATABASE=1 npm run bench -- search
 *    --chunks N`), takes that run's tenant of exactly `--base` chunks instead and seeds nothing;
 * 2. embedder alone: `embed()` over the bulk load's texts in batches of 64 (a sample of 5,000);
 * 3. idle search p95 (vector and hybrid, in-process, result cache off, query vectors cached);
 * 4. a bulk load of `--chunks` more (documents of 500 synthetic chunks, marked bulk, BENCH_BULK_JOBS
 *    (2) jobs at once, then the one index build and the publish) while one client searches back to
 *    back: the load's rate (chunks / wall time, index build included) against the embedder alone, and
 *    search p50/p95 during the load against idle.
 *
 * Layouts: by default the load runs in this process (as APP_ROLE=all: the in-process embedder and the
 * searches share one event loop) and the per-stage clock is printed; with `--worker-process` a
 * separate `APP_ROLE=worker` process (dist/apps/api/src/worker.js) drains it, as the README's
 * production layout runs it, and this process only searches (the load's time runs from its first
 * claimed job to the last published document). BENCH_BULK_SEARCH=0: no searches during the load (a
 * profile of the load alone).
 *
 * Reusing a kept database changes it: its tenant grows by the load (a later `bench -- search --chunks N`
 * no longer finds it), and the model's vector index is rebuilt over every vector. A model that never had
 * a bulk load first gets its bounded index (one build over the whole corpus, once per model), timed and
 * reported apart from the load.
 */

const PER_DOCUMENT = 500;
const JOBS = Number(process.env.BENCH_BULK_JOBS ?? 2);
const SEARCH_DURING = process.env.BENCH_BULK_SEARCH !== '0';
const ROOT = path.resolve(__dirname, '../..');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

interface Stats {
  n: number;
  p50: number;
  p95: number;
}

const stats = (times: number[]): Stats => {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50) ?? NaN, p95: percentile(sorted, 95) ?? NaN };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** The tenant `bench -- search --chunks <base>` seeded and kept (its slug `bench-...`, exactly `base` chunks). */
function keptSearchTenant(base: number) {
  return async (app: INestApplicationContext) => {
    const rows: Array<{ id: string; chunks: number }> = await app.get(DataSource).query(
      `SELECT t.id, n.chunk_count AS chunks FROM tenants t JOIN document_corpus n ON n.tenant_id = t.id
         WHERE t.slug LIKE 'bench-%' ORDER BY t.created_at DESC`,
    );
    const kept = rows.find((r) => Number(r.chunks) === base);
    if (!kept)
      throw new Error(
        `BENCH_REUSE_DATABASE=${process.env.BENCH_REUSE_DATABASE} holds no search-bench tenant of ${base} chunks ` +
          `(found: ${rows.map((r) => r.chunks).join(', ') || 'none'}); pass --base <its chunk count>`,
      );
    return kept;
  };
}

/**
 * A kept corpus whose model never had a bulk load still has its unbounded index: the first bulk job
 * would replace it by a bounded one (a build over every vector), once per model. Done here, timed
 * apart, so the load measures what every later bulk load costs. Returns seconds, or null if not needed.
 */
async function openFirstSegment(app: INestApplicationContext): Promise<number | null> {
  const segments = app.get(BulkSegmentsRepository);
  const provider = app.get(EmbeddingProviders).configured;
  if (await segments.state(provider.model)) return null;
  const config = app.get(DocumentsConfig);
  const started = performance.now();
  await segments.open(modelIndexName(provider.model), provider.model, await provider.dimensions(), {
    maintenanceWorkMem: config.DOCUMENTS_BULK_MAINTENANCE_WORK_MEM,
    workers: config.DOCUMENTS_BULK_INDEX_WORKERS,
  });
  return (performance.now() - started) / 1000;
}

/** Drains the queue in a separate APP_ROLE=worker process; resolves with the load's start and end (epoch ms). */
async function drainInWorkerProcess(
  ds: DataSource,
  tenantId: string,
  queuedFrom: Date,
): Promise<{ started: number; finished: number }> {
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist/apps/api/src/worker.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      APP_ROLE: 'worker',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DOCUMENTS_WORKER_CONCURRENCY: String(JOBS),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (;;) {
      const [row]: Array<{ left: number; started: Date | null; failed: number }> = await ds.query(
        `SELECT count(*) FILTER (WHERE j.status IN ('queued', 'running', 'loaded'))::int AS left,
                count(*) FILTER (WHERE j.status = 'failed')::int AS failed,
                min(j.claimed_at) AS started
         FROM document_jobs j WHERE j.tenant_id = $1 AND j.bulk AND j.created_at >= $2`,
        [tenantId, queuedFrom],
      );
      if (row.failed > 0) throw new Error(`${row.failed} bulk jobs failed in the worker process`);
      if (row.left === 0) return { started: row.started!.getTime(), finished: Date.now() };
      if (child.exitCode !== null) throw new Error(`the worker process exited (${child.exitCode})`);
      await sleep(250);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function run(backend: Backend, base: number, chunks: number, workerProcess: boolean): Promise<void> {
  const reuse = Boolean(process.env.BENCH_REUSE_DATABASE);
  const bench = await startBenchApp(backend, `bulk_${chunks}`, reuse ? keptSearchTenant(base) : undefined);
  try {
    await runAsTenant(bench.tenantId, async () => {
      const ingestion = bench.app.get(DocumentIngestionService);
      const search = bench.app.get(DocumentSearchService);
      const ds = bench.app.get(DataSource);
      const { sentences, queries } = sentencePool();
      const tenantId = bench.tenantId;

      const seedStarted = performance.now();
      if (!bench.reused) {
        await queue(ingestion, tenantId, syntheticChunks(base, sentences, 11), 'base');
        await ingestion.processQueue();
        await ingestion.completeBulkLoads();
      }
      const seeded = await chunkCount(ds, tenantId);
      console.log(
        bench.reused
          ? `reusing tenant ${tenantId} of ${process.env.BENCH_REUSE_DATABASE}: ${seeded} chunks`
          : `seeded ${seeded} chunks in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
      );
      const firstSegment = await openFirstSegment(bench.app);
      if (firstSegment !== null)
        console.log(
          `first bulk load of the model: bounded index built over the corpus in ${firstSegment.toFixed(1)} s`,
        );

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
      const [{ now: queuedFrom }]: Array<{ now: Date }> = await ds.query(`SELECT now()`);
      await queue(ingestion, tenantId, texts, 'bulk');
      const during = { vector: [] as number[], hybrid: [] as number[] };
      let loading = true;
      const searching = (async () => {
        while (loading && SEARCH_DURING) {
          during.vector.push(await searchOnce('vector'));
          during.hybrid.push(await searchOnce('hybrid'));
        }
      })();
      let stages: IngestionStageTimings | null = null;
      let window: { started: number; finished: number };
      try {
        if (workerProcess) window = await drainInWorkerProcess(ds, tenantId, queuedFrom);
        else {
          const before = ingestion.stageTimings();
          const started = Date.now();
          await ingestion.processQueue({ concurrency: JOBS });
          await ingestion.completeBulkLoads();
          window = { started, finished: Date.now() };
          const after = ingestion.stageTimings();
          stages = Object.fromEntries(
            INGESTION_STAGES.map((s) => [s, after[s] - before[s]]),
          ) as IngestionStageTimings;
        }
      } finally {
        loading = false;
        await searching;
      }
      const ingested = (await chunkCount(ds, tenantId)) - seeded;
      const seconds = (window.finished - window.started) / 1000;
      const rate = ingested / seconds;

      const layout = workerProcess
        ? 'the load drained by a separate APP_ROLE=worker process, searches in this one'
        : 'the load and the searches in one process (APP_ROLE=all)';
      console.log(
        `\n### ${backend}: bulk load of ${ingested} chunks onto ${seeded} (${layout}), ${new Date().toISOString()}, load average ${loadBefore} -> ${loadAverage()}\n`,
      );
      console.log(`| | chunks/s |\n|---|---|`);
      console.log(`| embedder alone (${sample.length} texts, batches of 64) | ${embedderAlone.toFixed(0)} |`);
      console.log(
        `| bulk load (${seconds.toFixed(1)} s, index build and publish included) | **${rate.toFixed(0)}** (${((100 * rate) / embedderAlone).toFixed(0)}% of the embedder) |`,
      );
      if (stages) {
        console.log(`\n| stage (${JOBS} jobs at once: stages overlap) | ms per chunk |\n|---|---|`);
        for (const stage of INGESTION_STAGES)
          if (stages[stage] > 0) console.log(`| ${stage} | ${(stages[stage] / ingested).toFixed(3)} |`);
        console.log(`| wall | ${((1000 * seconds) / ingested).toFixed(3)} |`);
      }
      const row = (label: string, s: Stats) =>
        `| ${label} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p95.toFixed(1)} |`;
      console.log(`\n| search (ms) | n | p50 | p95 |\n|---|---|---|---|`);
      console.log(row('vector idle', stats(idle.vector)));
      console.log(row('vector during the load', stats(during.vector)));
      console.log(row('hybrid idle', stats(idle.hybrid)));
      console.log(row('hybrid during the load', stats(during.hybrid)));
      const ratio = (k: 'vector' | 'hybrid') => (stats(during[k]).p95 / stats(idle[k]).p95).toFixed(2);
      if (failures.length > 0) console.log(`\n${failures.length} searches failed, first: ${failures[0]}`);
      if (SEARCH_DURING)
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
  const workerProcess = argv.includes('--worker-process');
  if (workerProcess && backend !== 'native')
    throw new Error('--worker-process needs the native backend (an embedded database has one process)');
  process.env.LOG_LEVEL = 'warn';
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? '';
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  process.env.DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT = '100000';
  process.env.DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT = String(16 * 1024 ** 3);
  process.env.DOCUMENTS_JOB_MAX_RUNNING_PER_TENANT = '0';
  console.log(`# npm run bench:bulk -- ${argv.join(' ')}`);
  console.log(`date ${new Date().toISOString()}, node ${process.version}, load average ${loadAverage()}`);
  await run(backend, base, chunks, workerProcess);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
