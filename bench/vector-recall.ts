/**
 * The vector branch's recall/latency sweep (issue 28): recall@10 of pgvector's index against exact
 * search over the bench corpus's hashed vectors, per storage (vector, halfvec, binary quantization
 * with re-ranking), m, ef_construction and ef_search, with latency, build time and index bytes per
 * vector; and, before the sweep, why recall is what it is: the distribution of exact similarities
 * (the top-10 against the noise floor, near-ties at the 10th) and the vectors' density.
 *
 * The corpus is the search bench's (`syntheticChunks` over the SciFact/KorQuAD sentence pool, same
 * seed), the queries the reference bench's (half SciFact claims, half KorQuAD questions). Vectors go
 * into a scratch table of their own (`embedding vector` untyped, as `chunk_embeddings` stores them,
 * indexed by the same expressions the app uses), not through the app: the sweep measures the index,
 * `npm run bench -- search` and `npm run bench:reference` measure the served search.
 *
 *   npm run bench:vector-recall -- --backend native --chunks 100000 --dims 1024 \
 *     --configs halfvec:16:64,halfvec:32:128 --ef 40,100,200,400 [--rerank 10,40] [--queries 100] [--analyze-only]
 *
 * Config syntax: `<storage>:<m>:<ef_construction>`; storage is `vector`, `halfvec` or `bit` (binary
 * quantization, a Hamming HNSW index, re-ranked by exact cosine); `exact` runs the sequential scan.
 * `--rerank K1,K2`: the index returns max(K, 10) candidates, re-ranked by exact float4 cosine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { HashEmbeddingProvider } from '@app/documents/testing';
import { flag, loadAverage } from './support/bench-app';
import { sentencePool, syntheticChunks } from './support/synthetic-corpus';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const fmt = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

interface Sql {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

async function nativeSql(): Promise<Sql> {
  const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ops_vector_recall_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return {
    query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
    close: async () => {
      await client.end();
      const drop = new Client({ connectionString: base });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await drop.end();
    },
  };
}

/** PGlite in this process (the app serves it from a worker thread over a socket; here no socket). */
async function embeddedSql(): Promise<Sql> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-vector-recall-'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as {
    PGlite: {
      create(options: object): Promise<{
        query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
        close(): Promise<void>;
      }>;
    };
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { vector } = require('@electric-sql/pglite-pgvector') as { vector: unknown };
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } });
  return {
    query: async <R>(sql: string, params?: unknown[]) => (await db.query<R>(sql, params)).rows,
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const literal = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

/** pgvector's binary input (node-postgres sends a Buffer parameter in binary format): no text parsing. */
function binary(v: Float32Array): Buffer {
  const buffer = Buffer.allocUnsafe(4 + 4 * v.length);
  buffer.writeInt16BE(v.length, 0);
  buffer.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) buffer.writeFloatBE(v[i], 4 + 4 * i);
  return buffer;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Exact similarities of one query to every vector, and the indexes of the top k. */
function exact(vectors: Float32Array[], q: Float32Array, k: number): { sims: Float32Array; top: number[] } {
  const sims = new Float32Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) sims[i] = dot(vectors[i], q);
  const top = Array.from(sims.keys())
    .sort((a, b) => sims[b] - sims[a] || a - b)
    .slice(0, k);
  return { sims, top };
}

function analyze(
  vectors: Float32Array[],
  queries: Float32Array[],
  truth: Array<{ sims: Float32Array; top: number[] }>,
) {
  const density = (vs: Float32Array[]) =>
    vs.reduce((s, v) => s + v.filter((x) => x !== 0).length / v.length, 0) / vs.length;
  const rows = truth.map(({ sims }) => {
    let mean = 0;
    for (const s of sims) mean += s;
    mean /= sims.length;
    let variance = 0;
    for (const s of sims) variance += (s - mean) ** 2;
    const sd = Math.sqrt(variance / sims.length);
    const order = Array.from(sims).sort((a, b) => b - a);
    const tenth = order[9];
    return {
      top1: order[0],
      tenth,
      gap: order[9] - order[10],
      hundredth: order[99],
      mean,
      sd,
      z10: (tenth - mean) / sd,
      // Chunks as close to the query as the 10th, within 1% of the 10th's similarity: near-ties.
      near: order.filter((s) => s >= tenth * 0.99).length,
    };
  });
  const med = (key: keyof (typeof rows)[number]) =>
    percentile(
      rows.map((r) => r[key]),
      50,
    );
  const q10 = (key: keyof (typeof rows)[number]) =>
    percentile(
      rows.map((r) => r[key]),
      10,
    );
  const q90 = (key: keyof (typeof rows)[number]) =>
    percentile(
      rows.map((r) => r[key]),
      90,
    );
  console.log('| exact cosine, per query | p10 | median | p90 |');
  console.log('|---|---|---|---|');
  for (const [label, key] of [
    ['top-1 similarity', 'top1'],
    ['10th similarity', 'tenth'],
    ['10th - 11th', 'gap'],
    ['100th similarity', 'hundredth'],
    ['mean similarity to all chunks', 'mean'],
    ['sd of similarity to all chunks', 'sd'],
    ['10th in sds above the mean', 'z10'],
    ['chunks within 1% of the 10th', 'near'],
  ] as const)
    console.log(`| ${label} | ${q10(key).toFixed(4)} | ${med(key).toFixed(4)} | ${q90(key).toFixed(4)} |`);
  console.log(
    `\nnon-zero coordinates: chunks ${(100 * density(vectors)).toFixed(1)}%, queries ${(100 * density(queries)).toFixed(1)}%\n`,
  );
}

async function main() {
  const argv = process.argv.slice(2);
  const backend = (flag(argv, 'backend') ?? 'native') as 'native' | 'embedded';
  const chunks = Number(flag(argv, 'chunks') ?? 100000);
  const dims = Number(flag(argv, 'dims') ?? 1024);
  const queryCount = Number(flag(argv, 'queries') ?? 100);
  const configs = (flag(argv, 'configs') ?? 'vector:16:64').split(',').filter(Boolean);
  const efs = (flag(argv, 'ef') ?? '40,100,200').split(',').map(Number);
  const reranks = (flag(argv, 'rerank') ?? '10').split(',').map(Number);
  const workMem = flag(argv, 'maintenance-work-mem') ?? '2GB';
  console.log(`# npm run bench:vector-recall -- ${argv.join(' ')}`);
  console.log(`date ${new Date().toISOString()}, load average before: ${loadAverage()}\n`);

  const { sentences, queries: all } = sentencePool();
  const texts = syntheticChunks(chunks, sentences);
  const queries = [...all.slice(0, queryCount / 2), ...all.slice(150, 150 + queryCount / 2)];
  const embedder = new HashEmbeddingProvider(dims);
  // In batches, each straight to float4: 100k JavaScript number arrays of 4,000 would not fit the heap.
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += 1000)
    for (const v of await embedder.embed(texts.slice(start, start + 1000)))
      vectors.push(Float32Array.from(v));
  const queryVectors = (await embedder.embed(queries)).map((v) => Float32Array.from(v));
  const truth = queryVectors.map((q) => exact(vectors, q, 10));
  console.log(`${chunks} chunks, ${queries.length} queries, hash-v1-${dims}\n`);
  analyze(vectors, queryVectors, truth);
  if (argv.includes('--analyze-only')) return;

  // Recall@10 against exact by id, and tie-tolerant (a hit as close as the exact 10th, within 1e-6).
  const score = (got: number[][]) => {
    let ids = 0;
    let close = 0;
    got.forEach((g, i) => {
      const { sims, top } = truth[i];
      const tenth = sims[top[9]];
      ids += g.filter((x) => top.includes(x)).length / 10;
      close += Math.min(10, g.filter((x) => sims[x] >= tenth - 1e-6).length) / 10;
    });
    return { ids: ids / got.length, close: close / got.length };
  };

  const sql = backend === 'native' ? await nativeSql() : await embeddedSql();
  try {
    await sql.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    const [{ version }] = await sql.query<{ version: string }>(
      `SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'`,
    );
    const [{ server }] = await sql.query<{ server: string }>(
      `SELECT current_setting('server_version') AS server`,
    );
    console.log(`${backend}: PostgreSQL ${server}, pgvector ${version}\n`);
    await sql.query(`CREATE TABLE items (id integer PRIMARY KEY, embedding vector NOT NULL)`);
    // Native: binary vector parameters; PGlite's query API takes them as text.
    const param = (v: Float32Array) => (backend === 'native' ? binary(v) : literal(v));
    const loadStarted = performance.now();
    for (let start = 0; start < vectors.length; start += 100) {
      const batch = vectors.slice(start, start + 100);
      const values = batch.map((_, i) => `(${start + i}, $${i + 1}::vector)`).join(', ');
      await sql.query(`INSERT INTO items (id, embedding) VALUES ${values}`, batch.map(param));
    }
    await sql.query(`ANALYZE items`);
    console.log(`loaded in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s\n`);

    console.log(
      '| storage | m | ef_construction | build s | index MB | bytes/vector | ef_search | candidates | recall@10 | recall@10 (ties) | p50 ms | p95 ms | plan |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const expr = (storage: string) =>
      storage === 'halfvec'
        ? `(embedding::halfvec(${dims}))`
        : storage === 'bit'
          ? `(binary_quantize(embedding::vector(${dims}))::bit(${dims}))`
          : `(embedding::vector(${dims}))`;
    const ops = (storage: string) =>
      storage === 'halfvec'
        ? 'halfvec_cosine_ops'
        : storage === 'bit'
          ? 'bit_hamming_ops'
          : 'vector_cosine_ops';
    const distance = (storage: string, param: string) =>
      storage === 'halfvec'
        ? `${expr(storage)} <=> ${param}::vector(${dims})::halfvec(${dims})`
        : storage === 'bit'
          ? `${expr(storage)} <~> binary_quantize(${param}::vector(${dims}))::bit(${dims})`
          : `${expr(storage)} <=> ${param}::vector(${dims})`;
    // Each statement reads the query vector as parameter $1.
    const run = (label: string, statement: string, setup: string[]) =>
      measure(label, statement, setup).catch((error: Error) =>
        console.log(`${label} | failed: ${error.message} |`),
      );
    const measure = async (label: string, statement: string, setup: string[]) => {
      for (const s of setup) await sql.query(s);
      for (const q of queryVectors.slice(0, 5)) await sql.query(statement, [param(q)]); // warm
      const times: number[] = [];
      const got: number[][] = [];
      for (const q of queryVectors) {
        const started = performance.now();
        const rows = await sql.query<{ id: number }>(statement, [param(q)]);
        times.push(performance.now() - started);
        got.push(rows.map((r) => Number(r.id)));
      }
      const r = score(got);
      const plan = await sql.query<Record<string, string>>(`EXPLAIN ${statement}`, [param(queryVectors[0])]);
      const scan = plan.some((row) => /Index Scan using items_hnsw/.test(Object.values(row)[0]))
        ? 'index'
        : 'no index';
      console.log(
        `${label} | ${r.ids.toFixed(3)} | ${r.close.toFixed(3)} | ${fmt(percentile(times, 50))} | ${fmt(percentile(times, 95))} | ${scan} |`,
      );
    };
    for (const config of configs) {
      if (config === 'exact') {
        await run(
          `| exact (sequential scan, float4) | | | | | | | |`,
          `SELECT id FROM items ORDER BY embedding::vector(${dims}) <=> $1::vector(${dims}) LIMIT 10`,
          [`SET enable_indexscan = off`],
        );
        await sql.query(`SET enable_indexscan = on`);
        continue;
      }
      const [storage, m, efc] = config.split(':');
      await sql.query(`DROP INDEX IF EXISTS items_hnsw`);
      const started = performance.now();
      await sql.query(`SET maintenance_work_mem = '${workMem}'`);
      await sql.query(`SET statement_timeout = 0`);
      if (backend === 'native') await sql.query(`SET max_parallel_maintenance_workers = 2`);
      await sql.query(
        `CREATE INDEX items_hnsw ON items USING hnsw (${expr(storage)} ${ops(storage)}) WITH (m = ${Number(m)}, ef_construction = ${Number(efc)})`,
      );
      const build = (performance.now() - started) / 1000;
      const [{ bytes }] = await sql.query<{ bytes: string }>(
        `SELECT pg_relation_size('items_hnsw') AS bytes`,
      );
      const head = `| ${storage} | ${m} | ${efc} | ${build.toFixed(0)} | ${(Number(bytes) / 2 ** 20).toFixed(0)} | ${(Number(bytes) / chunks).toFixed(0)}`;
      for (const ef of efs) {
        for (const k of storage === 'vector' ? [10] : reranks) {
          const candidates = Math.max(k, 10);
          const inner = `SELECT id, embedding FROM items ORDER BY ${distance(storage, '$1')} LIMIT ${candidates}`;
          await run(
            `${head} | ${ef} | ${storage === 'vector' ? 10 : candidates}`,
            storage === 'vector'
              ? `SELECT id FROM items ORDER BY ${distance(storage, '$1')} LIMIT 10`
              : `SELECT id FROM (${inner}) s ORDER BY embedding::vector(${dims}) <=> $1::vector(${dims}) LIMIT 10`,
            [`SET hnsw.ef_search = ${ef}`, `SET hnsw.iterative_scan = off`],
          );
        }
      }
      await sql.query(`DROP INDEX items_hnsw`);
    }
    const [{ table }] = await sql.query<{ table: string }>(`SELECT pg_total_relation_size('items') AS table`);
    console.log(`\ntable with vectors: ${(Number(table) / 2 ** 20).toFixed(0)} MB`);
  } finally {
    await sql.close();
  }
  console.log(`load average after: ${loadAverage()}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
