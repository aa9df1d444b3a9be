// Shared data loading + exact brute-force cosine evaluation.
import fs from 'node:fs';

const DATA = '/work/shared/data';

function readJsonl(p) {
  return fs
    .readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function readQrels(p) {
  const m = new Map();
  const lines = fs.readFileSync(p, 'utf8').split('\n').filter(Boolean);
  for (const l of lines.slice(1)) {
    const [q, d, s] = l.split('\t');
    if (Number(s) <= 0) continue;
    if (!m.has(q)) m.set(q, new Map());
    m.get(q).set(d, Number(s));
  }
  return m;
}

// split: 'test' | 'train'
export function loadSciFact(split = 'test') {
  const corpus = readJsonl(`${DATA}/scifact/corpus.jsonl`);
  const docIds = corpus.map((d) => String(d._id));
  const docTexts = corpus.map((d) => `${d.title} ${d.text}`);
  const qrels = readQrels(`${DATA}/scifact/qrels/${split}.tsv`);
  const qmap = new Map(readJsonl(`${DATA}/scifact/queries.jsonl`).map((q) => [String(q._id), q.text]));
  const queryIds = [...qrels.keys()].filter((q) => qmap.has(q));
  const queryTexts = queryIds.map((q) => qmap.get(q));
  return { name: `scifact-${split}`, docIds, docTexts, queryIds, queryTexts, qrels };
}

// deterministic PRNG (mulberry32)
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// part: 'report' (first 1000 of a seeded shuffle) | 'tune' (next 1000) | 'all'
export function loadKorQuAD(part = 'report', n = 1000) {
  const j = JSON.parse(fs.readFileSync(`${DATA}/korquad-v1-dev/KorQuAD_v1.0_dev.json`, 'utf8'));
  const docIds = [],
    docTexts = [],
    qs = [];
  for (const art of j.data) {
    for (const p of art.paragraphs) {
      const pid = String(docIds.length);
      docIds.push(pid);
      docTexts.push(p.context);
      for (const qa of p.qas) qs.push({ id: qa.id, text: qa.question, pid });
    }
  }
  const r = rng(42);
  for (let i = qs.length - 1; i > 0; i--) {
    const k = Math.floor(r() * (i + 1));
    [qs[i], qs[k]] = [qs[k], qs[i]];
  }
  const sel = part === 'all' ? qs : part === 'tune' ? qs.slice(n, 2 * n) : qs.slice(0, n);
  const qrels = new Map(sel.map((q) => [q.id, new Map([[q.pid, 1]])]));
  return {
    name: `korquad-${part}`,
    docIds,
    docTexts,
    queryIds: sel.map((q) => q.id),
    queryTexts: sel.map((q) => q.text),
    qrels,
    totalQuestions: qs.length,
  };
}

// vecs: array of Float32Array (assumed L2-normalised; we normalise defensively)
export function toMatrix(vecs) {
  const dim = vecs[0].length;
  const m = new Float32Array(vecs.length * dim);
  vecs.forEach((v, i) => {
    let s = 0;
    for (let k = 0; k < dim; k++) s += v[k] * v[k];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let k = 0; k < dim; k++) m[i * dim + k] = v[k] * inv;
  });
  return { m, n: vecs.length, dim };
}

// exact brute-force cosine top-k
export function searchTopK(docM, q, k = 100) {
  const { m, n, dim } = docM;
  const scores = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const off = i * dim;
    for (let d = 0; d < dim; d++) s += m[off + d] * q[d];
    scores[i] = s;
  }
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => scores[b] - scores[a] || a - b);
  return idx.slice(0, k);
}

export function evaluate(ds, docVecs, queryVecs) {
  const docM = toMatrix(docVecs);
  const qM = toMatrix(queryVecs);
  let ndcg = 0,
    rec = 0,
    mrr = 0,
    n = 0;
  for (let qi = 0; qi < ds.queryIds.length; qi++) {
    const rel = ds.qrels.get(ds.queryIds[qi]);
    if (!rel || rel.size === 0) continue;
    const q = qM.m.subarray(qi * qM.dim, (qi + 1) * qM.dim);
    const top = searchTopK(docM, q, 100).map((i) => ds.docIds[i]);
    // nDCG@10 (graded gains as in trec_eval: gain = rel)
    let dcg = 0;
    for (let r = 0; r < 10; r++) {
      const g = rel.get(top[r]) || 0;
      if (g > 0) dcg += g / Math.log2(r + 2);
    }
    const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
    const idcg = ideal.reduce((s, g, r) => s + g / Math.log2(r + 2), 0);
    ndcg += dcg / idcg;
    // Recall@100
    let hit = 0;
    for (const d of top) if (rel.has(d)) hit++;
    rec += hit / rel.size;
    // MRR@10
    for (let r = 0; r < 10; r++)
      if (rel.has(top[r])) {
        mrr += 1 / (r + 1);
        break;
      }
    n++;
  }
  return { nDCG10: ndcg / n, R100: rec / n, MRR10: mrr / n, nQueries: n };
}

export const fmt = (x) => x.toFixed(4);
