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
async function sweep(search: DocumentSearchService, tenantId: string, queries: Query[]) {
  for (const mode of ['text', 'vector'] as const) {
    console.log(
      `branch ${mode} nDCG@10=${fmt((await evaluate(search, tenantId, queries, mode, {})).ndcg10)}`,
    );
  }
  const grid: Fusion[] = [];
  for (const vector of [0.1, 0.2, 0.3, 0.5, 0.7, 1])
    grid.push({ fusion: 'convex', weights: { text: 1, vector } });
  for (const rrf_k of [5, 60])
    for (const vector of [0.1, 0.3]) grid.push({ fusion: 'rrf', rrf_k, weights: { text: 1, vector } });
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
 * The relevance floor for citations (CHAT_MIN_RELEVANCE): the vector branch's cosine similarity (absolute, unlike
 * the fused and BM25 scores, which are relative to the query's best) of the first relevant hit of
 * each on-topic tuning query against the top hit of off-topic queries (the other collection's questions, which
 * have no answer in this corpus). Prints, per candidate floor, the share of relevant hits kept and of
 * off-topic top hits dropped.
 */
async function calibrateFloor(
  search: DocumentSearchService,
  tenantId: string,
  onTopic: Query[],
  offTopic: Query[],
) {
  const relevantScores: number[] = [];
  const offTopicScores: number[] = [];
  for (const query of onTopic) {
    const response = await search.search(tenantId, { query: query.text, search_type: 'hybrid', top_k: 5 });
    const hit = response.results.find((r) => query.relevant.has(r.document_name.replace(/\.txt$/, '')));
    if (hit) relevantScores.push(hit.branches.vector?.score ?? 0);
  }
  for (const query of offTopic) {
    const response = await search.search(tenantId, { query: query.text, search_type: 'hybrid', top_k: 1 });
    offTopicScores.push(response.results[0]?.branches.vector?.score ?? 0);
  }
  console.log(
    `relevant hits in top 5: ${relevantScores.length}/${onTopic.length}; off-topic queries: ${offTopic.length}`,
  );
  console.log('| floor | relevant hits kept | off-topic top hits dropped |');
  console.log('|---|---|---|');
  const q = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length
      ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(3)
      : '-';
  };
  console.log(
    `relevant hit score p5=${q(relevantScores, 0.05)} p10=${q(relevantScores, 0.1)} p50=${q(relevantScores, 0.5)}; ` +
      `off-topic top score p50=${q(offTopicScores, 0.5)} p90=${q(offTopicScores, 0.9)} max=${q(offTopicScores, 1)}`,
  );
  for (const floor of [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]) {
    const kept = relevantScores.filter((s) => s >= floor).length / (relevantScores.length || 1);
    const dropped = offTopicScores.filter((s) => s < floor).length / (offTopicScores.length || 1);
    console.log(`| ${floor} | ${(kept * 100).toFixed(1)}% | ${(dropped * 100).toFixed(1)}% |`);
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
