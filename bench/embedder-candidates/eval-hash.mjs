// Candidate 2 evaluation. usage:
//   node eval-hash.mjs tune     -> grid on SciFact train + KorQuAD tune sample (disjoint from report sample)
//   node eval-hash.mjs report   -> named variants on SciFact test + KorQuAD report sample, with throughput
import fs from 'node:fs';
import { makeEmbedder } from './hashemb.mjs';
import { loadSciFact, loadKorQuAD, evaluate, fmt } from './common.mjs';

const mode = process.argv[2] || 'tune';

function run(ds, cfg) {
  const emb = makeEmbedder(cfg);
  // warm-up
  for (let i = 0; i < 50; i++) emb(ds.docTexts[i]);
  let t = performance.now();
  const dv = ds.docTexts.map(emb);
  const dSecs = (performance.now() - t) / 1000;
  t = performance.now();
  const qv = ds.queryTexts.map(emb);
  const qSecs = (performance.now() - t) / 1000;
  const r = evaluate(ds, dv, qv);
  return { ...r, docsPerSec: ds.docTexts.length / dSecs, queriesPerSec: ds.queryTexts.length / qSecs };
}

const line = (name, ds, r) =>
  `${name.padEnd(28)} ${ds.padEnd(15)} nDCG@10=${fmt(r.nDCG10)} R@100=${fmt(r.R100)} MRR@10=${fmt(r.MRR10)} docs/s=${r.docsPerSec.toFixed(0)} q/s=${r.queriesPerSec.toFixed(0)}`;

if (mode === 'tune') {
  const sets = [loadSciFact('train'), loadKorQuAD('tune')];
  const grid = process.argv[4]
    ? JSON.parse(process.argv[4])
    : {
        'base: uni+bi.5+char.5+hbi': { W: { uni: 1, bi: 0.5, char: 0.5, hbi: 1 } },
        'hword.5': { W: { uni: 1, hword: 0.5, bi: 0.5, char: 0.5, hbi: 1 } },
        hword0: { W: { uni: 1, hword: 0, bi: 0.5, char: 0.5, hbi: 1 } },
        'hword.5 bi0': { W: { uni: 1, hword: 0.5, bi: 0, char: 0.5, hbi: 1 } },
        'hword.5 nodigitchar': { W: { uni: 1, hword: 0.5, bi: 0.5, char: 0.5, hbi: 1 }, charDigits: false },
        'hword.5 charN2': { W: { uni: 1, hword: 0.5, bi: 0.5, char: 2, hbi: 1 }, charNorm: true },
        'hword.5 charN2 nodig': {
          W: { uni: 1, hword: 0.5, bi: 0.5, char: 2, hbi: 1 },
          charNorm: true,
          charDigits: false,
        },
        'hword.5 charN3 nodig': {
          W: { uni: 1, hword: 0.5, bi: 0.5, char: 3, hbi: 1 },
          charNorm: true,
          charDigits: false,
        },
        'hword.5 charN3 nodig bi.3': {
          W: { uni: 1, hword: 0.5, bi: 0.3, char: 3, hbi: 1 },
          charNorm: true,
          charDigits: false,
        },
      };
  const dimArg = process.argv[3] ? Number(process.argv[3]) : 1024;
  for (const [name, cfg] of Object.entries(grid)) {
    for (const ds of sets) console.log(line(`${name} d${dimArg}`, ds.name, run(ds, { dim: dimArg, ...cfg })));
  }
} else {
  const sets = [loadSciFact('test'), loadKorQuAD('report')];
  const variants = JSON.parse(process.argv[3] || 'null') || {
    'hash-384': { dim: 384 },
    'hash-512': { dim: 512 },
    'hash-768': { dim: 768 },
    'hash-1024': { dim: 1024 },
  };
  const out = {};
  for (const [name, cfg] of Object.entries(variants)) {
    for (const ds of sets) {
      const r = run(ds, cfg);
      out[`${name}/${ds.name}`] = r;
      console.log(line(name, ds.name, r));
    }
  }
  fs.writeFileSync('results-hash.json', JSON.stringify(out, null, 2));
}
