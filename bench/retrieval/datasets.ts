import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface Passage {
  id: string;
  text: string;
}

export interface Query {
  id: string;
  text: string;
  /** corpus id -> graded relevance */
  relevant: Map<string, number>;
}

export interface Dataset {
  name: 'scifact' | 'korquad' | 'code';
  passages: Passage[];
  /** Queries fusion defaults may be tuned on. */
  tune: Query[];
  /** Queries figures are reported on (never used for tuning). */
  report: Query[];
}

/** The evaluation data is absent: the message says where it comes from; the runner prints it without a stack. */
export class EvaluationDataMissing extends Error {}

/** `../shared/data` relative to the project root (the data is not copied into the repository). */
export function dataRoot(): string {
  const candidates = [
    path.resolve(process.cwd(), '../shared/data'),
    path.resolve(__dirname, '../../../../shared/data'),
  ];
  const found = candidates.find((dir) => existsSync(dir));
  if (!found) {
    throw new EvaluationDataMissing(
      [
        'The evaluation data is not here. The retrieval evaluation reads public test collections',
        '(BEIR SciFact, KorQuAD 1.0 dev) from ../shared/data next to the project; they are not copied',
        'into the repository (KorQuAD may not be redistributed modified). To run it, place them as:',
        '  ../shared/data/scifact/{corpus.jsonl,queries.jsonl,qrels/train.tsv,qrels/test.tsv}',
        '    (BEIR SciFact: https://github.com/beir-cellar/beir, dataset "scifact")',
        '  ../shared/data/korquad-v1-dev/KorQuAD_v1.0_dev.json',
        '    (KorQuAD 1.0 dev set: https://korquad.github.io/KorQuad%201.0/)',
        `Looked in: ${[...new Set(candidates)].join(', ')}`,
      ].join('\n'),
    );
  }
  return found;
}

function readQrels(file: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [qid, did, score] = line.trim().split('\t');
    if (!qid || !did) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid)!.set(did, Number(score));
  }
  return qrels;
}

function loadSciFact(root: string): Dataset {
  const dir = path.join(root, 'scifact');
  const jsonl = (file: string) =>
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { _id: string; title?: string; text: string });
  const passages = jsonl('corpus.jsonl').map((d) => ({
    id: d._id,
    text: d.title ? `${d.title}\n\n${d.text}` : d.text,
  }));
  const texts = new Map(jsonl('queries.jsonl').map((q) => [q._id, q.text]));
  const toQueries = (file: string): Query[] =>
    [...readQrels(path.join(dir, 'qrels', file))].map(([id, relevant]) => ({
      id,
      text: texts.get(id)!,
      relevant,
    }));
  return { name: 'scifact', passages, tune: toQueries('train.tsv'), report: toQueries('test.tsv') };
}

interface KorQuad {
  data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ id: string; question: string }> }> }>;
}

/** Every 5th question (in file order) is the tuning subset; the other 80% are reported. */
export const KORQUAD_TUNE_EVERY = 5;

function loadKorQuad(root: string): Dataset {
  const file = path.join(root, 'korquad-v1-dev', 'KorQuAD_v1.0_dev.json');
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as KorQuad;
  const passages: Passage[] = [];
  const queries: Query[] = [];
  parsed.data.forEach((article, a) =>
    article.paragraphs.forEach((paragraph, p) => {
      const id = `k${a}-${p}`;
      passages.push({ id, text: paragraph.context });
      for (const qa of paragraph.qas)
        queries.push({ id: qa.id, text: qa.question, relevant: new Map([[id, 1]]) });
    }),
  );
  return {
    name: 'korquad',
    passages,
    tune: queries.filter((_, i) => i % KORQUAD_TUNE_EVERY === 0),
    report: queries.filter((_, i) => i % KORQUAD_TUNE_EVERY !== 0),
  };
}

interface KyCommit {
  message: string;
  files: Array<{ path: string; status: string; after: string | null }>;
}

/**
 * The code set, built from code-ky (a real TypeScript repository's last 139 commits): the passages are the
 * source and test files as they stand after the last commit, the queries the commit subjects (PR numbers
 * removed), each relevant to the files its commit changed that still exist. Even commits tune, odd ones report.
 * A commit subject names what changed in words the code often uses (`retry`, `hooks`, `timeout`), so it is a
 * keyword-heavy set, unlike KorQuAD's paraphrased questions.
 */
function loadCode(root: string): Dataset {
  const commits = gunzipSync(readFileSync(path.join(root, 'code-ky', 'commits.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as KyCommit);
  const files = new Map<string, string>();
  for (const commit of commits)
    for (const file of commit.files) {
      if (file.status === 'deleted' || file.after === null) files.delete(file.path);
      else files.set(file.path, file.after);
    }
  const id = (file: string) => file.replace(/[^A-Za-z0-9.-]/g, '_');
  const passages = [...files].map(([file, text]) => ({ id: id(file), text: `${file}\n\n${text}` }));
  const queries: Query[] = [];
  commits.forEach((commit, i) => {
    const relevant = new Map(
      commit.files.filter((f) => files.has(f.path)).map((f) => [id(f.path), 1] as [string, number]),
    );
    const text = commit.message.replace(/\s*\(#\d+\)\s*$/, '').trim();
    if (relevant.size && text.length >= 2) queries.push({ id: `c${i}`, text, relevant });
  });
  return {
    name: 'code',
    passages,
    tune: queries.filter((_, i) => i % 2 === 0),
    report: queries.filter((_, i) => i % 2 === 1),
  };
}

export function loadDataset(name: string): Dataset {
  const root = dataRoot();
  if (name === 'scifact') return loadSciFact(root);
  if (name === 'korquad') return loadKorQuad(root);
  if (name === 'code') return loadCode(root);
  throw new Error(`unknown dataset ${name} (scifact | korquad | code)`);
}

/** nDCG@10, Recall@100 and MRR@10 of one ranked list of corpus ids. */
export function scoreRanking(ranked: string[], relevant: Map<string, number>) {
  const dcg = (gains: number[]) => gains.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const gains = ranked.slice(0, 10).map((id) => relevant.get(id) ?? 0);
  const ideal = dcg([...relevant.values()].sort((a, b) => b - a).slice(0, 10));
  const positives = [...relevant].filter(([, g]) => g > 0).map(([id]) => id);
  const top100 = new Set(ranked.slice(0, 100));
  const firstHit = ranked.slice(0, 10).findIndex((id) => (relevant.get(id) ?? 0) > 0);
  return {
    ndcg10: ideal > 0 ? dcg(gains) / ideal : 0,
    recall100: positives.length ? positives.filter((id) => top100.has(id)).length / positives.length : 0,
    mrr10: firstHit >= 0 ? 1 / (firstHit + 1) : 0,
  };
}
