import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { DocumentIngestionService, DocumentSearchService, type SearchType } from '@app/documents';
import { runAsTenant } from '@app/platform';
import { Backend, flag, loadAverage, startBenchApp } from '../support/bench-app';
import { Dataset, EvaluationDataMissing, loadDataset, Query, scoreRanking } from './datasets';

interface Fusion {
  fusion?: 'rrf' | 'convex';
  candidates?: number;
  rrf_k?: number;
  weights?: { text: number; vector: number };
}

interface Figures {
  ndcg10: number;
  recall100: number;
  mrr10: number;
  queries: number;
  msPerQuery: number;
}

const fmt = (n: number) => n.toFixed(4);

/** Keeps the relevant passages of the first `queries` queries plus filler, for quick runs (CI). */
function subset(dataset: Dataset, docs: number, queries: number): Dataset {
  const report = dataset.report.slice(0, queries);
  const tune = dataset.tune.slice(0, queries);
  const needed = new Set([...report, ...tune].flatMap((q) => [...q.relevant.keys()]));
  const passages = dataset.passages.filter((p) => needed.has(p.id));
  for (const p of dataset.passages) {
    if (passages.length >= Math.max(docs, needed.size)) break;
    if (!needed.has(p.id)) passages.push(p);
  }
  return { ...dataset, passages, report, tune };
}

async function ingest(
  ds: DataSource,
  ingestion: DocumentIngestionService,
  tenantId: string,
  dataset: Dataset,
) {
  const started = performance.now();
  for (const passage of dataset.passages) {
    await ingestion.create(tenantId, {
      filename: `${passage.id}.txt`,
      content: passage.text,
      contentType: 'text/plain',
      metadata: { corpus_id: passage.id },
      userId: 'eval',
    });
  }
  const queued = (performance.now() - started) / 1000;
  await ingestion.processQueue();
  const seconds = (performance.now() - started) / 1000;
  // Autovacuum would analyze soon after a bulk load; do it now so the first queries are planned well.
  await ds.query('ANALYZE');
  const failed = (await ingestion.list(tenantId, { status: 'failed', limit: 5 })).total;
  return { seconds, queued, failed };
}

async function evaluate(
  search: DocumentSearchService,
  tenantId: string,
  queries: Query[],
  mode: SearchType,
  fusion: Fusion,
): Promise<Figures> {
  const sum = { ndcg10: 0, recall100: 0, mrr10: 0 };
  const started = performance.now();
  for (const query of queries) {
    const response = await search.search(tenantId, {
      query: query.text,
      search_type: mode,
      top_k: 100,
      ...fusion,
      candidates: Math.max(fusion.candidates ?? 100, 100),
    });
    const ranked: string[] = [];
    for (const result of response.results) {
      const id = result.document_name.replace(/\.txt$/, '');
      if (!ranked.includes(id)) ranked.push(id);
    }
    const s = scoreRanking(ranked, query.relevant);
    sum.ndcg10 += s.ndcg10;
    sum.recall100 += s.recall100;
    sum.mrr10 += s.mrr10;
  }
  const n = queries.length || 1;
  return {
    ndcg10: sum.ndcg10 / n,
    recall100: sum.recall100 / n,
    mrr10: sum.mrr10 / n,
    queries: queries.length,
    msPerQuery: (performance.now() - started) / n,
  };
}

function fusionFromArgs(argv: string[]): Fusion {
  const fusion: Fusion = {};
  const candidates = flag(argv, 'candidates');
  const k = flag(argv, 'rrf-k');
  const tw = flag(argv, 'text-weight');
  const vw = flag(argv, 'vector-weight');
  if (candidates) fusion.candidates = Number(candidates);
  const method = flag(argv, 'fusion');
  if (method) fusion.fusion = method as Fusion['fusion'];
  if (k) fusion.rrf_k = Number(k);
  if (tw || vw) fusion.weights = { text: Number(tw ?? 1), vector: Number(vw ?? 1) };
  return fusion;
}

/** Grid over fusion parameters, scored on the tuning queries only. */
async function sweep(search: DocumentSearchService, tenantId: string, queries: Query[], only?: string) {
  for (const mode of only ? [] : (['text', 'vector'] as const)) {
    console.log(
      `branch ${mode} nDCG@10=${fmt((await evaluate(search, tenantId, queries, mode, {})).ndcg10)}`,
    );
  }
  let grid: Fusion[] = [];
  for (const vector of [0.1, 0.2, 0.3, 0.5]) grid.push({ fusion: 'convex', weights: { text: 1, vector } });
  // RRF at the designed k=60: the branch weights decide how much the weak offline vector ranking may move BM25's.
  for (const vector of [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1])
    grid.push({ fusion: 'rrf', rrf_k: 60, weights: { text: 1, vector } });
  // --grid rrf:0.05,convex:0.2 runs just those cells (fusion:vector weight, text weight 1, RRF k=60).
  if (only)
    grid = only.split(',').map((cell) => {
      const [fusion, vector] = cell.split(':');
      return fusion === 'rrf'
        ? { fusion: 'rrf', rrf_k: 60, weights: { text: 1, vector: Number(vector) } }
        : { fusion: 'convex', weights: { text: 1, vector: Number(vector) } };
    });
  const rows: Array<Fusion & { ndcg10: number }> = [];
  for (const fusion of grid) {
    const f = await evaluate(search, tenantId, queries, 'hybrid', fusion);
    rows.push({ ...fusion, ndcg10: f.ndcg10 });
    console.log(`sweep ${JSON.stringify(fusion)} nDCG@10=${fmt(f.ndcg10)}`);
  }
  rows.sort((a, b) => b.ndcg10 - a.ndcg10);
  console.log(`best on the tuning split: ${JSON.stringify(rows[0])}`);
}

/**
 * The relevance floor for citations (CHAT_MIN_RELEVANCE, CHAT_MIN_KEYWORD_RELEVANCE): the branch scores (absolute,
 * unlike the fused score, which is relative to the query's best) of the first relevant hit of each on-topic tuning
 * query against every hit of off-topic queries (the planner's operations questions, which have no answer in this
 * corpus), in the top 5 as the chat searches. A passage is cited when its vector cosine reaches the vector floor OR
 * its keyword score reaches the keyword floor. Prints, per floor pair, the share of relevant hits kept and of
 * off-topic questions left with no cited passage.
 */
async function calibrateFloor(
  search: DocumentSearchService,
  tenantId: string,
  onTopic: Query[],
  offTopic: Query[],
) {
  type Scores = { vector: number; text: number };
  const scoresOf = (r: {
    branches: { text: { score: number } | null; vector: { score: number } | null };
  }) => ({
    vector: r.branches.vector?.score ?? 0,
    text: r.branches.text?.score ?? 0,
  });
  const relevant: Scores[] = [];
  const offTopicHits: Scores[][] = [];
  for (const query of onTopic) {
    const response = await search.search(tenantId, { query: query.text, search_type: 'hybrid', top_k: 5 });
    const hit = response.results.find((r) => query.relevant.has(r.document_name.replace(/\.txt$/, '')));
    if (hit) relevant.push(scoresOf(hit));
  }
  for (const query of offTopic) {
    const response = await search.search(tenantId, { query: query.text, search_type: 'hybrid', top_k: 5 });
    offTopicHits.push(response.results.map(scoresOf));
  }
  console.log(
    `relevant hits in top 5: ${relevant.length}/${onTopic.length}; off-topic queries: ${offTopic.length}`,
  );
  const q = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length
      ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(3)
      : '-';
  };
  for (const branch of ['vector', 'text'] as const) {
    const rel = relevant.map((s) => s[branch]);
    const off = offTopicHits.map((hits) => Math.max(0, ...hits.map((s) => s[branch])));
    console.log(
      `${branch}: relevant hit p5=${q(rel, 0.05)} p10=${q(rel, 0.1)} p50=${q(rel, 0.5)}; ` +
        `off-topic best of top 5 p50=${q(off, 0.5)} p90=${q(off, 0.9)} max=${q(off, 1)}`,
    );
  }
  console.log(
    '| vector floor | keyword floor | relevant hits kept | off-topic questions with nothing cited |',
  );
  console.log('|---|---|---|---|');
  const passes = (s: Scores, vf: number, kf: number) => s.vector >= vf || (kf > 0 && s.text >= kf);
  for (const vf of [0.05, 0.08, 0.1, 0.15])
    for (const kf of [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4]) {
      const kept = relevant.filter((s) => passes(s, vf, kf)).length / (relevant.length || 1);
      const dropped =
        offTopicHits.filter((hits) => !hits.some((s) => passes(s, vf, kf))).length /
        (offTopicHits.length || 1);
      console.log(`| ${vf} | ${kf} | ${(kept * 100).toFixed(1)}% | ${(dropped * 100).toFixed(1)}% |`);
    }
}

/** Everyday operations questions (the planner's labelled set) in the collection's language: no answer in it. */
function offTopicQueries(language: 'ko' | 'en'): Query[] {
  const file = path.resolve(__dirname, '../../../bench/planner/planner-questions.json');
  const { questions } = JSON.parse(readFileSync(file, 'utf8')) as {
    questions: { lang: string; query: string }[];
  };
  return questions
    .filter((question) => question.lang === language)
    .map((question, index) => ({ id: `off-${index}`, text: question.query, relevant: new Map() }));
}

async function main() {
  const argv = process.argv.slice(2);
  const name = flag(argv, 'dataset') ?? 'scifact';
  const backend = (flag(argv, 'backend') ?? 'embedded') as Backend;
  const modeArg = flag(argv, 'mode') ?? 'all';
  const modes: SearchType[] = modeArg === 'all' ? ['text', 'vector', 'hybrid'] : [modeArg as SearchType];
  const split = flag(argv, 'split') ?? 'report';
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  // The evaluation queues a whole collection (thousands of documents) for one tenant at once: the
  // per-tenant queue caps (429 DOCUMENTS_QUEUE_FULL at 100 jobs) are for API clients, not for it.
  process.env.DOCUMENTS_MAX_QUEUED_JOBS_PER_TENANT ??= String(2 ** 31 - 1);
  process.env.DOCUMENTS_MAX_QUEUED_BYTES_PER_TENANT ??= String(2 ** 31 - 1);
  let dataset = loadDataset(name);
  const docs = flag(argv, 'docs');
  const queryLimit = flag(argv, 'queries');
  if (docs || queryLimit) dataset = subset(dataset, Number(docs ?? 0), Number(queryLimit ?? 1e9));
  const queries = split === 'tune' ? dataset.tune : dataset.report;
  console.log(
    `dataset=${name} backend=${backend} passages=${dataset.passages.length} queries=${queries.length} (${split} split) load=${loadAverage()}`,
  );
  const bench = await startBenchApp(backend, `eval_${name}`);
  try {
    // Everything below acts as the bench tenant, as its API requests would (row-level security).
    await runAsTenant(bench.tenantId, async () => {
      const ingestion = bench.app.get(DocumentIngestionService);
      const search = bench.app.get(DocumentSearchService);
      const { seconds, queued, failed } = bench.reused
        ? { seconds: NaN, queued: NaN, failed: 0 }
        : await ingest(bench.app.get(DataSource), ingestion, bench.tenantId, dataset);
      console.log(
        `ingested ${dataset.passages.length} passages in ${seconds.toFixed(1)} s (${(dataset.passages.length / seconds).toFixed(0)} docs/s; enqueueing took ${queued.toFixed(1)} s), failed=${failed}`,
      );
      if (argv.includes('--calibrate-floor')) {
        const count = Number(queryLimit ?? 100);
        await calibrateFloor(
          search,
          bench.tenantId,
          dataset.tune.slice(0, count),
          offTopicQueries(dataset.name === 'korquad' ? 'ko' : 'en'),
        );
        return;
      }
      if (argv.includes('--sweep')) {
        await sweep(
          search,
          bench.tenantId,
          dataset.tune.slice(0, Number(flag(argv, 'sweep-queries') ?? 1e9)),
          flag(argv, 'grid'),
        );
        return;
      }
      const fusion = fusionFromArgs(argv);
      console.log('| mode | nDCG@10 | Recall@100 | MRR@10 | queries | ms/query |');
      console.log('|---|---|---|---|---|---|');
      for (const mode of modes) {
        const f = await evaluate(search, bench.tenantId, queries, mode, fusion);
        console.log(
          `| ${mode} | ${fmt(f.ndcg10)} | ${fmt(f.recall100)} | ${fmt(f.mrr10)} | ${f.queries} | ${f.msPerQuery.toFixed(1)} |`,
        );
      }
    });
  } finally {
    await bench.close();
  }
}

main().catch((error) => {
  console.error(error instanceof EvaluationDataMissing ? error.message : error);
  process.exit(1);
});
