// Candidate 2: weights-free hashed embedding (feature hashing), Korean + English.
//
// Scheme (all configurable, defaults = recommended variant):
//  1. text.normalize('NFKC').toLowerCase()
//  2. tokens = maximal runs of one script class, via /[\p{L}\p{N}]+/gu then split on
//     script change between Hangul (U+AC00-D7A3, U+1100-11FF, U+3130-318F) and non-Hangul
//     ("mri는" -> "mri", "는").
//  3. features per token (Latin/other = non-Hangul, Hangul):
//     - word unigram        "w\u0001" + tok           weight W.uni   (skipped for stopwords)
//     - word bigram         "b\u0001" + t1 + " " + t2 weight W.bi    (over the token sequence; pairs
//                                                      where either side is a stopword are skipped)
//     - non-Hangul tokens:  char n-grams n in [cMin,cMax] of "<"+tok+">"  "c\u0001"+g  weight W.char
//                           (only for tokens with length >= 2 and not stopwords; digits included)
//     - Hangul tokens:      char bigrams of the token "k\u0001"+g weight W.hbi; a 1-char token
//                           contributes its unigram; optionally Hangul char unigrams W.huni
//  4. tf per distinct feature string -> value = weight * (1 + ln tf)   (sublinear tf, no IDF)
//  5. h = fmix32(fnv1a32(feature)) (FNV-1a over UTF-16 code units, then MurmurHash3 finaliser)
//     bucket = h mod dim (dim power of two -> h & (dim-1)); sign = (h >>> 31) ? -1 : +1
//     (uses the top bit, independent of the bucket bits for dim <= 2^31)
//  6. v[bucket] += sign * value; then L2-normalise v (zero vector stays zero).

export const EN_STOP = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her hers him his ' +
    'how i if in into is it its itself me more most my no nor not of on or our ours she so than that the their ' +
    'theirs them then there these they this those to too very was we were what when where which while who whom ' +
    'why will with would you your yours also may might must shall should about above after again against all any ' +
    'because before below between both during each few further here just once only other out over own same some ' +
    'such through under until up down off s t don now am'
  ).split(/\s+/),
);

export function fnv1a32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const HANGUL = /[\uAC00-\uD7A3\u1100-\u11FF\u3130-\u318F]/;
const isHangul = (ch) => HANGUL.test(ch);

export function tokenize(text) {
  const s = text.normalize('NFKC').toLowerCase();
  const out = [];
  for (const m of s.matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    let start = 0;
    let prevH = isHangul(w[0]);
    for (let i = 1; i < w.length; i++) {
      const h = isHangul(w[i]);
      if (h !== prevH) {
        out.push({ t: w.slice(start, i), h: prevH });
        start = i;
        prevH = h;
      }
    }
    out.push({ t: w.slice(start), h: prevH });
  }
  return out;
}

export const DEFAULTS = {
  dim: 1024,
  cMin: 3,
  cMax: 5,
  stop: true,
  W: { uni: 1.0, hword: null, bi: 1.0, char: 0.5, hbi: 1.0, huni: 0.0 },
  charDigits: true, // if false, pure-digit tokens get no char n-grams
  charNorm: false, // if true, char n-gram weight per token divided by sqrt(#ngrams of token)
};

export function makeEmbedder(cfg = {}) {
  const c = { ...DEFAULTS, ...cfg, W: { ...DEFAULTS.W, ...(cfg.W || {}) } };
  const pow2 = (c.dim & (c.dim - 1)) === 0;
  return function embed(text) {
    const toks = tokenize(text);
    // feature -> [weight, tf]
    const feats = new Map();
    const add = (f, w) => {
      if (w === 0) return;
      const e = feats.get(f);
      if (e) e[1]++;
      else feats.set(f, [w, 1]);
    };
    let prev = null;
    for (const { t, h } of toks) {
      const stop = c.stop && !h && EN_STOP.has(t);
      if (!stop) add('w\u0001' + t, h && c.W.hword !== null ? c.W.hword : c.W.uni);
      if (prev !== null && !stop) add('b\u0001' + prev + ' ' + t, c.W.bi);
      prev = stop ? null : t;
      if (h) {
        if (t.length === 1) add('k\u0001' + t, c.W.hbi);
        for (let i = 0; i + 2 <= t.length; i++) add('k\u0001' + t.slice(i, i + 2), c.W.hbi);
        if (c.W.huni) for (let i = 0; i < t.length; i++) add('u\u0001' + t[i], c.W.huni);
      } else if (!stop && t.length >= 2 && c.W.char && (c.charDigits || !/^[0-9]+$/.test(t))) {
        const p = '<' + t + '>';
        let cnt = 0;
        for (let n = c.cMin; n <= c.cMax; n++) cnt += Math.max(0, p.length - n + 1);
        const w = c.charNorm ? c.W.char / Math.sqrt(Math.max(1, cnt)) : c.W.char;
        for (let n = c.cMin; n <= c.cMax; n++) {
          for (let i = 0; i + n <= p.length; i++) add('c\u0001' + p.slice(i, i + n), w);
        }
      }
    }
    const v = new Float32Array(c.dim);
    for (const [f, [w, tf]] of feats) {
      const hh = fmix32(fnv1a32(f));
      const b = pow2 ? hh & (c.dim - 1) : hh % c.dim;
      const sign = hh >>> 31 ? -1 : 1;
      v[b] += sign * w * (1 + Math.log(tf));
    }
    let s = 0;
    for (let i = 0; i < c.dim; i++) s += v[i] * v[i];
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let i = 0; i < c.dim; i++) v[i] *= inv;
    }
    return v;
  };
}
