import { DataSource } from 'typeorm';
import { runAsTenant } from '@app/platform';
import {
  DocumentIngestionService,
  EmbeddingProviders,
  INGESTION_STAGES,
  type IngestionStageTimings,
} from '@app/documents';
import { Backend, flag, loadAverage, startBenchApp } from './support/bench-app';
import { sentencePool, syntheticChunks } from './support/synthetic-corpus';

/**
 * Where ingestion time goes: `npm run bench:profile-ingest -- --backend native|embedded|both --chunks 500`.
 * Ingests the same kind of corpus as `bench/run.ts ingest` (documents of 25 synthetic chunks) through
 * the real ingestion service and worker, and reads the worker's per-stage clock:
 *
 * 1. one job at a time, so the stages add up to the wall time (embedding overlaps writes only
 *    within a job);
 * 2. the default concurrency (2 jobs), what `bench/run.ts` measures;
 * 3. one job at a time with the model's HNSW index dropped: the difference in "insert vectors"
 *    is what maintaining the HNSW graph costs;
 *
 * each in a fresh database, and times inserting the same vectors as text and as binary parameters
 * into an unindexed table.
 */

const PER_DOCUMENT = 25;

interface Run {
  label: string;
  chunks: number;
  seconds: number;
  stages: IngestionStageTimings;
}

async function ingestOnce(
  ingestion: DocumentIngestionService,
  tenantId: string,
  texts: string[],
  label: string,
  concurrency: number,
): Promise<Run> {
  for (let i = 0; i < texts.length; i += PER_DOCUMENT) {
    await ingestion.create(tenantId, {
      filename: `doc-${i}.txt`,
      content: texts.slice(i, i + PER_DOCUMENT).join('\n\n'),
    });
  }
  const before = ingestion.stageTimings();
  const started = performance.now();
  await ingestion.processQueue({ concurrency });
  const seconds = (performance.now() - started) / 1000;
  const after = ingestion.stageTimings();
  const stages = Object.fromEntries(
    INGESTION_STAGES.map((s) => [s, after[s] - before[s]]),
  ) as IngestionStageTimings;
  return { label, chunks: texts.length, seconds, stages };
}

/** pgvector's binary input format (int16 dim, int16 unused, float4 big-endian values). */
function vectorBinary(vector: number[]): Buffer {
  const buffer = Buffer.allocUnsafe(4 + 4 * vector.length);
  buffer.writeInt16BE(vector.length, 0);
  buffer.writeInt16BE(0, 2);
  vector.forEach((v, i) => buffer.writeFloatBE(v, 4 + 4 * i));
  return buffer;
}

/** Milliseconds per vector to insert `vectors` in statements of 64, as text or binary parameters. */
async function vectorTransfer(
  ds: DataSource,
  vectors: number[][],
): Promise<{ text: number; binary: number }> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query(`CREATE TABLE IF NOT EXISTS bench_vector_probe (id int, embedding vector)`);
    const time = async (encode: (v: number[]) => string | Buffer) => {
      await runner.query(`TRUNCATE bench_vector_probe`);
      const started = performance.now();
      for (let i = 0; i < vectors.length; i += 64) {
        const slice = vectors.slice(i, i + 64);
        const params: unknown[] = [];
        const rows = slice.map((v, j) => {
          params.push(i + j, encode(v));
          return `($${params.length - 1}::int, $${params.length}::vector)`;
        });
        await runner.query(
          `INSERT INTO bench_vector_probe (id, embedding) VALUES ${rows.join(', ')}`,
          params,
        );
      }
      return (performance.now() - started) / vectors.length;
    };
    const text = await time((v) => `[${v.join(',')}]`);
    const binary = await time(vectorBinary);
    return { text, binary };
  } finally {
    await runner.query(`DROP TABLE IF EXISTS bench_vector_probe`);
    await runner.release();
  }
}

/** One run in a fresh database, so every run inserts into an HNSW graph of the same size. */
async function measureRun(
  backend: Backend,
  chunks: number,
  label: string,
  options: { concurrency: number; hnsw: boolean },
): Promise<Run & { embedderAlone: number; transfer?: { text: number; binary: number } }> {
  // prepareBackend points DATABASE_URL / DATA_DIR at the run's fresh database; the next run starts from the original.
  const original = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };
  const bench = await startBenchApp(backend, `profile_${chunks}`);
  try {
    return await runAsTenant(bench.tenantId, async () => {
      const ingestion = bench.app.get(DocumentIngestionService);
      const ds = bench.app.get(DataSource);
      const sentences = sentencePool().sentences;
      // The first document creates the model's index; with `hnsw: false` it is dropped before the run
      // (the process remembers it created it and does not recreate it).
      await ingestion.create(bench.tenantId, { filename: 'warm-up.txt', content: 'warm up' });
      await ingestion.processQueue();
      if (!options.hnsw) {
        const indexes: Array<{ indexname: string }> = await ds.query(
          `SELECT indexname FROM pg_indexes WHERE tablename = 'chunk_embeddings' AND indexdef ILIKE '%hnsw%'`,
        );
        for (const { indexname } of indexes) await ds.query(`DROP INDEX "${indexname}"`);
      }
      const texts = syntheticChunks(chunks, sentences, 7);
      const run = await ingestOnce(ingestion, bench.tenantId, texts, label, options.concurrency);

      const provider = bench.app.get(EmbeddingProviders).configured;
      const embedStarted = performance.now();
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += 64)
        vectors.push(...(await provider.embed(texts.slice(i, i + 64))));
      const embedderAlone = texts.length / ((performance.now() - embedStarted) / 1000);
      const transfer = options.hnsw ? undefined : await vectorTransfer(ds, vectors);
      return { ...run, embedderAlone, transfer };
    });
  } finally {
    await bench.close();
    for (const [key, value] of Object.entries(original)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function profile(backend: Backend, chunks: number): Promise<void> {
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  const load = loadAverage();
  const serial = await measureRun(backend, chunks, 'one job at a time', { concurrency: 1, hnsw: true });
  const concurrent = await measureRun(backend, chunks, '2 jobs at once', { concurrency: 2, hnsw: true });
  const bare = await measureRun(backend, chunks, 'one job at a time, no HNSW index', {
    concurrency: 1,
    hnsw: false,
  });
  const runs = [serial, concurrent, bare];

  console.log(`\n### ${backend}, ${chunks} chunks, load average ${load} -> ${loadAverage()}\n`);
  console.log(`| ms per chunk | ${runs.map((r) => r.label).join(' | ')} |`);
  console.log(`|---|${runs.map(() => '---|').join('')}`);
  for (const stage of INGESTION_STAGES) {
    console.log(`| ${stage} | ${runs.map((r) => (r.stages[stage] / r.chunks).toFixed(2)).join(' | ')} |`);
  }
  const other = (r: Run) =>
    r.seconds * 1000 - INGESTION_STAGES.reduce((sum, stage) => sum + r.stages[stage], 0);
  console.log(
    `| other (queue, lookups; negative when jobs overlap) | ${runs.map((r) => (other(r) / r.chunks).toFixed(2)).join(' | ')} |`,
  );
  console.log(`| **wall** | ${runs.map((r) => ((r.seconds * 1000) / r.chunks).toFixed(2)).join(' | ')} |`);
  console.log(`| chunks/s | ${runs.map((r) => (r.chunks / r.seconds).toFixed(0)).join(' | ')} |`);
  console.log(`| embedder alone chunks/s | ${runs.map((r) => r.embedderAlone.toFixed(0)).join(' | ')} |`);
  const transfer = bare.transfer!;
  console.log(
    `\nHNSW maintenance ≈ ${((serial.stages['insert vectors'] - bare.stages['insert vectors']) / chunks).toFixed(2)} ms/vector` +
      ` ("insert vectors" with the index minus without). Vector parameters into an unindexed table,` +
      ` statements of 64: text ${transfer.text.toFixed(3)} ms/vector, binary ${transfer.binary.toFixed(3)} ms/vector` +
      ` (${(transfer.text / transfer.binary).toFixed(1)}x).`,
  );
}

async function main() {
  const argv = process.argv.slice(2);
  const backendArg = flag(argv, 'backend') ?? 'both';
  const backends: Backend[] = backendArg === 'both' ? ['native', 'embedded'] : [backendArg as Backend];
  const chunks = Number(flag(argv, 'chunks') ?? 500);
  process.env.LOG_LEVEL = 'warn';
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? '';
  console.log(`# npm run bench:profile-ingest -- ${argv.join(' ')}`);
  console.log(
    `date ${new Date().toISOString()}, node ${process.version}, load average before: ${loadAverage()}`,
  );
  for (const backend of backends) await profile(backend, chunks);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
