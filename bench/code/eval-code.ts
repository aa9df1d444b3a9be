import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { CodeGraphStore, DiffApplicationService, type DiffFileInput } from '@app/code';
import { DocumentIngestionService } from '@app/documents';
import { runAsTenant } from '@app/platform';
import { Backend, flag, loadAverage, startBenchApp } from '../support/bench-app';
import { typescriptReference } from './ts-reference';
import { EvaluationDataMissing } from '../retrieval/datasets';

interface Commit {
  commit: string;
  message: string;
  files: Array<{
    path: string;
    old_path: string | null;
    status: DiffFileInput['status'];
    before: string | null;
    after: string | null;
  }>;
}

const USER = 'ky-maintainer';
const REPOSITORY = 'ky';

function loadCommits(): Commit[] {
  const dir = process.env.CODE_KY_DIR ?? path.resolve(process.cwd(), '../shared/data/code-ky');
  const file = path.join(dir, 'commits.jsonl.gz');
  if (!existsSync(file))
    throw new EvaluationDataMissing(
      `The code evaluation data is not here: ${file} not found. It is a real TypeScript repository's history as\n` +
        'diffs (code-ky), read from ../shared/data/code-ky next to the project, not copied into the repository.\n' +
        'Place it there, or point CODE_KY_DIR at the directory that holds it.',
    );
  return gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Commit);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

function score(mine: Set<string>, truth: Set<string>) {
  let hits = 0;
  for (const edge of mine) if (truth.has(edge)) hits++;
  return {
    edges: mine.size,
    reference: truth.size,
    matched: hits,
    precision: mine.size ? hits / mine.size : 0,
    recall: truth.size ? hits / truth.size : 0,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const backend = (flag(argv, 'backend') ?? 'native') as Backend;
  const commits = loadCommits().slice(0, Number(flag(argv, 'commits') ?? Number.MAX_SAFE_INTEGER));
  const bench = await startBenchApp(backend, 'code_eval');
  const diffs = bench.app.get(DiffApplicationService);
  const graph = bench.app.get(CodeGraphStore);
  const documents = bench.app.get(DocumentIngestionService);
  const db = bench.app.get(DataSource);
  const tenant = <T>(fn: () => Promise<T>) => runAsTenant(bench.tenantId, fn);
  try {
    // Replay: each commit through the diff service, indexed, then made searchable.
    const expected = new Map<string, string>();
    const latencies: number[] = [];
    let filesIndexed = 0;
    let indexMs = 0;
    const started = performance.now();
    let repositoryId = '';
    let changedByDuplicate = 0;
    for (const commit of commits) {
      const t0 = performance.now();
      const diff = await tenant(() =>
        diffs.apply(bench.tenantId, {
          userId: USER,
          repository: REPOSITORY,
          commit: commit.commit,
          files: commit.files.map((f) => ({
            path: f.path,
            status: f.status,
            old_path: f.old_path,
            after: f.after,
          })),
        }),
      );
      repositoryId = diff.repository_id;
      const t1 = performance.now();
      await tenant(() => diffs.processQueue());
      indexMs += performance.now() - t1;
      await tenant(() => documents.processQueue());
      latencies.push(performance.now() - t0);
      // The same diff again at once changes nothing (idempotent by content hash).
      const duplicate = await tenant(() =>
        diffs.apply(bench.tenantId, {
          userId: USER,
          repository: REPOSITORY,
          commit: commit.commit,
          files: commit.files.map((f) => ({
            path: f.path,
            status: f.status,
            old_path: f.old_path,
            after: f.after,
          })),
        }),
      );
      changedByDuplicate += duplicate.changed_files.length;
      filesIndexed += diff.changed_files.length;
      for (const f of commit.files) {
        if (f.old_path && f.old_path !== f.path) expected.delete(f.old_path);
        if (f.status === 'deleted') expected.delete(f.path);
        else if (f.after !== null) expected.set(f.path, f.after);
      }
    }
    const replayMs = performance.now() - started;

    const storedRows: Array<{ path: string; text: string }> = await tenant(() =>
      db.query(`SELECT path, text FROM code_files WHERE repository_id = $1`, [repositoryId]),
    );
    const stored = new Map(storedRows.map((r) => [r.path, r.text]));
    const mismatched = [...expected].filter(([p, text]) => stored.get(p) !== text).map(([p]) => p);
    const extra = [...stored.keys()].filter((p) => !expected.has(p));

    const edgeKey = (e: {
      kind: string;
      source_path: string;
      line: number | null;
      target_path: string | null;
      target_name: string;
    }) =>
      e.kind === 'IMPORTS'
        ? `${e.source_path}->${e.target_path}`
        : `${e.source_path}:${e.line}->${e.target_path}#${e.target_name}`;
    const edgeSnapshot = async () =>
      (
        await tenant(() =>
          graph.edgesOf(repositoryId, ['CALLS', 'IMPORTS', 'EXTENDS', 'IMPLEMENTS', 'CONTAINS']),
        )
      )
        .map((e) => `${e.kind} ${edgeKey(e)} ${e.resolved}`)
        .sort();
    const before = await edgeSnapshot();

    // Replaying the whole history again rewinds and re-advances every file; it must end where it was.
    let changedOnReplay = 0;
    for (const commit of commits.slice(
      -Math.min(commits.length, Number(flag(argv, 'replay') ?? commits.length)),
    )) {
      const again = await tenant(() =>
        diffs.apply(bench.tenantId, {
          userId: USER,
          repository: REPOSITORY,
          commit: commit.commit,
          files: commit.files.map((f) => ({
            path: f.path,
            status: f.status,
            old_path: f.old_path,
            after: f.after,
          })),
        }),
      );
      await tenant(() => diffs.processQueue());
      changedOnReplay += again.changed_files.length;
    }
    const after = await edgeSnapshot();
    const graphUnchanged = before.length === after.length && before.every((line, i) => line === after[i]);

    const edges = await tenant(() => graph.edgesOf(repositoryId, ['CALLS', 'IMPORTS']));
    const mineCalls = new Set(
      edges.filter((e) => e.kind === 'CALLS' && e.resolved && e.target_path).map((e) => edgeKey(e)),
    );
    const mineImports = new Set(
      edges.filter((e) => e.kind === 'IMPORTS' && e.resolved && e.target_path).map((e) => edgeKey(e)),
    );
    const tsStarted = performance.now();
    const reference = typescriptReference(stored);
    const referenceMs = performance.now() - tsStarted;
    const unresolvedCalls = edges.filter((e) => e.kind === 'CALLS' && !e.resolved).length;

    const report = {
      dataset: 'code-ky',
      backend,
      commits: commits.length,
      file_changes: commits.reduce((n, c) => n + c.files.length, 0),
      correctness: {
        files_expected: expected.size,
        files_stored: stored.size,
        mismatched,
        extra,
        final_texts_equal: mismatched.length === 0 && extra.length === 0,
        duplicate_diffs_changed_files: changedByDuplicate,
        second_replay_changed_files: changedOnReplay,
        second_replay_graph_identical: graphUnchanged,
      },
      graph: {
        calls: score(mineCalls, reference.calls),
        imports: score(mineImports, reference.imports),
        unresolved_calls_kept_by_name: unresolvedCalls,
        reference_ms: Math.round(referenceMs),
      },
      speed: {
        files_indexed: filesIndexed,
        index_seconds: +(indexMs / 1000).toFixed(2),
        files_per_second: +(filesIndexed / (indexMs / 1000)).toFixed(1),
        diff_to_searchable_ms: {
          p50: Math.round(percentile(latencies, 50)),
          p95: Math.round(percentile(latencies, 95)),
        },
        replay_seconds: +(replayMs / 1000).toFixed(1),
        load_average: loadAverage(),
      },
    };
    if (argv.includes('--misses')) {
      const calls = [...reference.calls].filter((c) => !mineCalls.has(c));
      const wrong = [...mineCalls].filter((c) => !reference.calls.has(c));
      process.stderr.write(`missed calls (${calls.length}):\n${calls.slice(0, 40).join('\n')}\n`);
      process.stderr.write(`extra calls (${wrong.length}):\n${wrong.slice(0, 40).join('\n')}\n`);
      const missedImports = [...reference.imports].filter((c) => !mineImports.has(c));
      process.stderr.write(
        `missed imports (${missedImports.length}):\n${missedImports.slice(0, 20).join('\n')}\n`,
      );
      const extraImports = [...mineImports].filter((c) => !reference.imports.has(c));
      process.stderr.write(
        `extra imports (${extraImports.length}):\n${extraImports.slice(0, 20).join('\n')}\n`,
      );
    }
    const out = flag(argv, 'out');
    if (out) writeFileSync(out, JSON.stringify(report, null, 2));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  // Missing evaluation data is a setup step, not a crash: its message says where the data goes.
  process.stderr.write(
    `${error instanceof EvaluationDataMissing ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exitCode = 1;
});
