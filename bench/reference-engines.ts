/**
 * Each search branch beside a dedicated engine over the same chunks and queries, in one run
 * (issue 28): the keyword branch beside Xapian's BM25 (python3-xapian), the vector branch beside
 * hnswlib (hnswlib-node) at the same recall@10 against exact search, and pgvector's HNSW recall and
 * latency over an ef_search sweep. Runs against a kept bench database (BENCH_REUSE_DATABASE, seeded
 * by `npm run bench -- search` with BENCH_KEEP_DATABASE=1); native only. Reference engines are dev
 * tools installed by the commands in BENCHMARKS.md; a missing one is reported and skipped.
 *
 *   BENCH_REUSE_DATABASE=<db> npm run bench:reference -- --chunks 100000 [--queries 100] [--text-only | --vector-only | --no-hnswlib]
 *     [--tenant <id>] [--hnswlib-index <file> [--hnswlib-build-only | --hnswlib-wait]]
 *
 * --no-hnswlib keeps the vector branch, exact search and the ef_search sweep but skips hnswlib's build (about
 * half an hour at 1M vectors on 2 cores); --vector-only skips Xapian (its index build took 31 minutes at 1M).
 * --hnswlib-index reads hnswlib's graph from the file when it exists, else builds it and writes it there;
 * with --hnswlib-build-only the run does only that (start it once the seeded rows are in, while PostgreSQL
 * still builds its own index, and the measuring run later reads the file). --tenant names the bench tenant
 * when its corpus count is not recorded yet. --hnswlib-wait (with --hnswlib-index) computes the vectors and the
 * exact top-10 first, then waits for another run's build to write the file, then measures: both sides
 * measured back to back, at the same machine load.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DocumentSearchService, toIndexText } from '@app/documents';
import { HashEmbeddingProvider } from '@app/documents/testing';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from '@app/migrations';
import { runAsTenant } from '@app/platform';
import { createApp } from '../apps/api/src/bootstrap';
import { validateEnvironment } from '../apps/api/src/config-schemas';
import { flag, loadAverage, prepareBackend } from './support/bench-app';
import { sentencePool } from './support/synthetic-corpus';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const fmt = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const stats = (times: number[]) => ({ p50: percentile(times, 50), p95: percentile(times, 95) });

function normalize(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

/** Exact top-k by cosine (vectors normalised): the ground truth recall is measured against. */
function exactTopK(vectors: Float32Array[], ids: string[], q: Float32Array, k: number): string[] {
  const best: Array<[number, number]> = [];
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i];
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += v[j] * q[j];
    if (best.length < k || dot > best[best.length - 1][0]) {
      best.push([dot, i]);
      best.sort((a, b) => b[0] - a[0]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([, i]) => ids[i]);
}

const recall = (got: string[][], truth: string[][]) =>
  got.reduce((sum, g, i) => sum + g.filter((id) => truth[i].includes(id)).length / truth[i].length, 0) /
  got.length;

interface HnswIndex {
  initIndex(max: number, m: number, efConstruction: number): void;
  addPoint(v: number[] | Float32Array, label: number): void;
  setEf(ef: number): void;
  searchKnn(q: number[] | Float32Array, k: number): { neighbors: number[] };
  readIndexSync(file: string): void;
  writeIndexSync(file: string): void;
  getCurrentCount(): number;
}

/** hnswlib's graph over the vectors (label = row position): read from `file` when it exists, else built (and written to `file`). */
function hnswlibIndex(
  vectors: Float32Array[],
  dims: number,
  file?: string,
): { index: HnswIndex; build: string } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hnswlib = require(process.env.HNSWLIB_NODE ?? 'hnswlib-node') as {
    HierarchicalNSW: new (space: string, dim: number) => HnswIndex;
  };
  const index = new hnswlib.HierarchicalNSW('cosine', dims);
  if (file && existsSync(file)) {
    index.readIndexSync(file);
    if (index.getCurrentCount() !== vectors.length)
      throw new Error(`${file} holds ${index.getCurrentCount()} vectors, the tenant ${vectors.length}`);
    return { index, build: `graph read from ${path.basename(file)}` };
  }
  index.initIndex(vectors.length, HNSW_M, HNSW_EF_CONSTRUCTION);
  const started = performance.now();
  vectors.forEach((v, i) => {
    index.addPoint(Array.from(v), i);
    if (i % 50_000 === 0) process.stderr.write(`  hnswlib: ${i}/${vectors.length}\r`);
  });
  const seconds = (performance.now() - started) / 1000;
  if (file) {
    index.writeIndexSync(file);
    console.log(
      `hnswlib graph of ${vectors.length} vectors built in ${seconds.toFixed(0)} s, written to ${file}`,
    );
  }
  return { index, build: `build ${seconds.toFixed(0)} s` };
}

/** Resolves once `file` exists and its size has stayed the same for 10 s (hnswlib writes it in one call). */
async function fileWritten(file: string): Promise<void> {
  let last = -1;
  for (;;) {
    const size = existsSync(file) ? statSync(file).size : -1;
    if (size > 0 && size === last) return;
    last = size;
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const chunks = Number(flag(argv, 'chunks') ?? 100000);
  const queryCount = Number(flag(argv, 'queries') ?? 100);
  // --text-only: the keyword branch beside Xapian alone (no vectors, no exact search, no hnswlib build).
  const withVector = !argv.includes('--text-only');
  const withText = !argv.includes('--vector-only');
  const hnswlibFile = flag(argv, 'hnswlib-index');
  const buildOnly = argv.includes('--hnswlib-build-only');
  if (buildOnly && !hnswlibFile) throw new Error('--hnswlib-build-only needs --hnswlib-index <file>');
  if (!process.env.BENCH_REUSE_DATABASE) throw new Error('set BENCH_REUSE_DATABASE to a kept bench database');
  process.env.LOG_LEVEL = 'warn';
  process.env.REDIS_URL = '';
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  process.env.DOCUMENTS_WORKER_CONCURRENCY = '0';
  await prepareBackend('native', 'reference');
  console.log(`# npm run bench:reference -- ${argv.join(' ')}`);
  console.log(`date ${new Date().toISOString()}, load average before: ${loadAverage()}\n`);
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const [tenant] = flag(argv, 'tenant')
    ? [{ id: flag(argv, 'tenant')! }]
    : ((
        await db.query(
          `SELECT t.id FROM tenants t JOIN document_corpus n ON n.tenant_id = t.id
       WHERE t.slug LIKE 'bench-%' AND n.chunk_count = $1 ORDER BY t.created_at DESC LIMIT 1`,
          [chunks],
        )
      ).rows as Array<{ id: string }>);
  if (!tenant)
    throw new Error(`no bench tenant with ${chunks} chunks in ${process.env.BENCH_REUSE_DATABASE}`);
  const rows = (
    await db.query(`SELECT id, text FROM document_chunks WHERE tenant_id = $1 ORDER BY id`, [tenant.id])
  ).rows as Array<{ id: string; text: string }>;
  const ids = rows.map((r) => r.id);
  const { queries: all } = sentencePool();
  // Half English (SciFact claims), half Korean (KorQuAD questions).
  const queries = [...all.slice(0, queryCount / 2), ...all.slice(150, 150 + queryCount / 2)];
  const [{ model }] = (
    await db.query(
      `SELECT coalesce(active_model, 'hash-v1-1024') AS model FROM document_corpus WHERE tenant_id = $1`,
      [tenant.id],
    )
  ).rows as Array<{ model: string }>;
  const embedder = HashEmbeddingProvider.fromModel(model);
  if (!embedder) throw new Error(`the bench tenant's model ${model} is not a hashed model`);
  const dims = await embedder.dimensions();
  // In batches, each kept as a Float32Array only: the embedder's number[][] for 1M texts at once held
  // ~10 GB of heap and never finished on this machine.
  const vectors: Float32Array[] = [];
  for (let start = 0; withVector && start < rows.length; start += 1024)
    for (const v of await embedder.embed(rows.slice(start, start + 1024).map((r) => r.text)))
      vectors.push(normalize(v));
  const queryVectors = withVector ? (await embedder.embed(queries)).map(normalize) : [];
  if (buildOnly) {
    hnswlibIndex(vectors, dims, hnswlibFile);
    await db.end();
    return;
  }
  const truth = queryVectors.map((q) => exactTopK(vectors, ids, q, 10));
  if (hnswlibFile && argv.includes('--hnswlib-wait')) await fileWritten(hnswlibFile);
  console.log(
    `${rows.length} chunks, ${queries.length} queries (${queries.length / 2} English, ${queries.length / 2} Korean)\n`,
  );

  // The project's branches, server side, through DocumentSearchService (query embeddings cached).
  const app = await createApp({ env: validateEnvironment(process.env) });
  const search = app.get(DocumentSearchService);
  const ours: Record<'text' | 'vector', { p50: number; p95: number; results: string[][] }> = {} as never;
  for (const type of withVector ? (['text', 'vector'] as const) : (['text'] as const)) {
    for (const query of queries)
      await runAsTenant(tenant.id, () => search.search(tenant.id, { query, search_type: type, top_k: 10 }));
    const times: number[] = [];
    const results: string[][] = [];
    for (const query of queries) {
      const started = performance.now();
      const response = await runAsTenant(tenant.id, () =>
        search.search(tenant.id, { query, search_type: type, top_k: 10 }),
      );
      times.push(performance.now() - started);
      results.push(response.results.map((r) => r.chunk_id));
    }
    ours[type] = { ...stats(times), results };
  }
  await app.close();
  const ourRecall = withVector ? recall(ours.vector.results, truth) : 0;

  if (withVector) {
    // pgvector HNSW alone (no filters, no joins), the served statement's shape: `limit` candidates from
    // the half-precision index, re-ranked by the float4 vectors; recall@10 and latency per ef_search.
    console.log(
      `| pgvector HNSW (halfvec, m ${HNSW_M}, ef_construction ${HNSW_EF_CONSTRUCTION}) | ef_search | candidates | recall@10 | p50 ms | p95 ms |`,
    );
    console.log('|---|---|---|---|---|---|');
    for (const [ef, limit] of [
      [40, 10],
      [100, 10],
      [100, 100],
      [200, 100],
      [400, 100],
      [1000, 100],
    ]) {
      await db.query(
        `SELECT set_config('hnsw.ef_search', $1, false), set_config('hnsw.iterative_scan', 'off', false)`,
        [String(ef)],
      );
      const times: number[] = [];
      const got: string[][] = [];
      for (const q of queryVectors) {
        const literal = `[${Array.from(q).join(',')}]`;
        const started = performance.now();
        const result = await db.query(
          `SELECT chunk_id FROM (
             SELECT chunk_id, embedding FROM chunk_embeddings e WHERE e.model = $3 AND e.tenant_id = $2
             ORDER BY (e.embedding::halfvec(${dims})) <=> $1::vector(${dims})::halfvec(${dims}) LIMIT ${limit}) s
           ORDER BY (embedding::vector(${dims})) <=> $1::vector(${dims}) LIMIT 10`,
          [literal, tenant.id, model],
        );
        times.push(performance.now() - started);
        got.push((result.rows as Array<{ chunk_id: string }>).slice(0, 10).map((r) => r.chunk_id));
      }
      const s = stats(times);
      console.log(
        `| | ${ef} | ${limit} | ${recall(got, truth).toFixed(3)} | ${fmt(s.p50)} | ${fmt(s.p95)} |`,
      );
    }
  }
  await db.end();

  console.log(
    '\n| branch | ours p50 / p95 ms | reference | reference p50 / p95 ms | ratio p50 / p95 | note |',
  );
  console.log('|---|---|---|---|---|---|');
  if (withVector && argv.includes('--no-hnswlib'))
    console.log(
      `| vector | ${fmt(ours.vector.p50)} / ${fmt(ours.vector.p95)} | hnswlib-node | skipped (--no-hnswlib) | | |`,
    );
  else if (withVector) {
    // Vector: hnswlib at the same recall@10 as the project's vector branch.
    try {
      const { index, build } = hnswlibIndex(vectors, dims, hnswlibFile);
      let chosen: { ef: number; r: number; p50: number; p95: number } | undefined;
      for (const ef of [10, 16, 24, 32, 48, 64, 100, 200, 400, 800, 1600, 3200]) {
        index.setEf(ef);
        const times: number[] = [];
        const got: string[][] = [];
        const plain = queryVectors.map((q) => Array.from(q));
        for (const q of plain) {
          const started = performance.now();
          const { neighbors } = index.searchKnn(q, 10);
          times.push(performance.now() - started);
          got.push(neighbors.map((i) => ids[i]));
        }
        const r = recall(got, truth);
        chosen = { ef, r, ...stats(times) };
        if (r >= Math.min(ourRecall, 0.999)) break;
      }
      const c = chosen!;
      console.log(
        `| vector | ${fmt(ours.vector.p50)} / ${fmt(ours.vector.p95)} (recall@10 ${ourRecall.toFixed(3)}) | hnswlib-node (M ${HNSW_M}, efConstruction ${HNSW_EF_CONSTRUCTION}, ef ${c.ef}; ${build}) | ${fmt(c.p50)} / ${fmt(c.p95)} (recall@10 ${c.r.toFixed(3)}) | ${(ours.vector.p50 / c.p50).toFixed(1)} / ${(ours.vector.p95 / c.p95).toFixed(1)} | in process, no SQL, no filters |`,
      );
    } catch (error) {
      console.log(
        `| vector | ${fmt(ours.vector.p50)} / ${fmt(ours.vector.p95)} | hnswlib-node | not available: ${(error as Error).message.split('\n')[0]} | | |`,
      );
    }
  }
  if (withText) {
    // Keyword: Xapian BM25 over the same index text (Korean as the same bigrams), same k1 and b.
    const script = path.join(__dirname, '..', '..', 'bench', 'reference', 'xapian_bm25.py');
    // The script's input through a file written in pieces: at 1M chunks the one JSON line is longer than
    // the longest string V8 builds.
    const inputPath = path.join(mkdtempSync(path.join(tmpdir(), 'xapian-input-')), 'input.jsonl');
    const fd = openSync(inputPath, 'w');
    writeSync(fd, '{"chunks": [');
    for (let start = 0; start < rows.length; start += 10_000)
      writeSync(
        fd,
        (start ? ',' : '') +
          rows
            .slice(start, start + 10_000)
            .map((r) => JSON.stringify([r.id, toIndexText(r.text)]))
            .join(','),
      );
    writeSync(fd, `]}\n${JSON.stringify({ queries: queries.map(toIndexText) })}\n`);
    closeSync(fd);
    const inputFd = openSync(inputPath, 'r');
    const run = spawnSync(process.env.XAPIAN_PYTHON ?? '/usr/bin/python3', [script, '0.9', '0.4'], {
      stdio: [inputFd, 'pipe', 'pipe'],
      maxBuffer: 1 << 28,
      encoding: 'utf8',
    });
    closeSync(inputFd);
    rmSync(path.dirname(inputPath), { recursive: true, force: true });
    if (run.status !== 0) {
      console.log(
        `| text | ${fmt(ours.text.p50)} / ${fmt(ours.text.p95)} | Xapian | not available: ${run.stderr.trim().split('\n').pop()} | | |`,
      );
    } else {
      const out = JSON.parse(run.stdout) as { index_seconds: number; times: number[]; results: string[][] };
      const x = stats(out.times);
      const overlap = recall(ours.text.results, out.results);
      console.log(
        `| text | ${fmt(ours.text.p50)} / ${fmt(ours.text.p95)} | Xapian 1.4 BM25 (k1 0.9, b 0.4; index built in ${out.index_seconds.toFixed(0)} s) | ${fmt(x.p50)} / ${fmt(x.p95)} | ${(ours.text.p50 / x.p50).toFixed(1)} / ${(ours.text.p95 / x.p95).toFixed(1)} | top-10 overlap with ours ${overlap.toFixed(2)} |`,
      );
    }
  }
  console.log(`\nload average after: ${loadAverage()}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
