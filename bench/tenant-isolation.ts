/**
 * Another tenant's search while one tenant loads the instance (issue 27): the p50/p95 of tenant B's
 * hybrid document searches idle, during tenant A's heavy ingestion (one large markdown document),
 * during tenant A's large code diff, and (with `--docx-sections N`) during the ingestion of one large
 * Word file (N sections of a heading and 4 paragraphs, built with the `docx` writer the tests use),
 * with /health/ready probed every 250 ms throughout. One process per backend, as the embedded
 * deployment runs: the searches, the document worker and the diff worker share the event loop and
 * the database (the searches are foreground work, the workers background work). For the docx phase
 * the ingestion's own stage times (parse, BM25 statistics, version switch) are printed too.
 *
 *   npm run bench:isolation -- [--backend both|native|embedded] [--sections 1500] [--files 800] [--idle 60]
 *                              [--docx-sections 0]
 * (`--files 0` skips the diff phase; `--docx-sections 15500` makes a docx of ~15,600 chunks, the size of issue 27's.)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { DiffApplicationService } from '@app/code';
import { DocumentIngestionService, DocumentSearchService } from '@app/documents';
import { AuthService, HealthRegistry, runAsSystem, runAsTenant, schedulerOf } from '@app/platform';
import { Backend, flag, loadAverage, startBenchApp } from './support/bench-app';
import { makeLargeDocx } from '@app/documents/testing';
import { sentencePool, syntheticChunks } from './support/synthetic-corpus';

interface Phase {
  phase: string;
  searches: number;
  p50: number;
  p95: number;
  max: number;
  ready: string;
  ms: number;
  /** Event-loop delay (the process's main thread) during the phase: p99 / max, ms. */
  loop: string;
  /** Embedded: a request statement's wait for the connection, p95 / max, and background leases' hold p95 / max, ms. */
  leases: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (n: number) => Math.round(n * 10) / 10;

/** A TypeScript file with a few functions, so the diff worker parses and embeds real code. */
const codeFile = (i: number) =>
  Array.from(
    { length: 6 },
    (_, f) =>
      `/** Computes part ${f} of module ${i}. */\nexport function part${i}_${f}(value: number): number {\n  return helper${f}(value) + ${i};\n}\n\nfunction helper${f}(value: number): number {\n  return value * ${f + 1};\n}\n`,
  ).join('\n');

async function run(
  backend: Backend,
  opts: { sections: number; files: number; idle: number; docxSections: number },
): Promise<Phase[]> {
  process.env.DOCUMENTS_SEARCH_CACHE_TTL_SECONDS = '0';
  const bench = await startBenchApp(backend, 'isolation');
  try {
    const { app } = bench;
    const b = bench.tenantId;
    const auth = app.get(AuthService);
    const slug = `isolation-a-${Date.now().toString(36)}`;
    const a = (await runAsSystem('bench: tenant a', () => auth.createTenant(slug, slug, undefined))).tenant
      .id;
    const ingestion = app.get(DocumentIngestionService);
    const search = app.get(DocumentSearchService);
    const diffs = app.get(DiffApplicationService);
    const health = app.get(HealthRegistry);
    const scheduler = schedulerOf(app.get(DataSource));
    const { sentences, queries } = sentencePool();

    // Tenant B: 20 documents of 10 sections, ingested before any measurement.
    const small = syntheticChunks(200, sentences, 7);
    for (let d = 0; d < 20; d++) {
      const content = small
        .slice(d * 10, d * 10 + 10)
        .map((text, s) => `## Section ${s}\n\n${text}`)
        .join('\n\n');
      await runAsTenant(b, () => ingestion.create(b, { filename: `b-${d}.md`, content }));
    }
    await runAsSystem('bench: ingest b', () => ingestion.processQueue());

    let q = 0;
    const searchOnce = async () => {
      const query = `${queries[q++ % queries.length]}`;
      const started = performance.now();
      await runAsTenant(b, () => search.search(b, { query, search_type: 'hybrid', top_k: 5 }));
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) await searchOnce(); // warm-up

    /** B searches one after another, and readiness is probed every 250 ms, until `until` settles. */
    const measure = async (phase: string, until: Promise<unknown> | number): Promise<Phase> => {
      const started = performance.now();
      const latencies: number[] = [];
      const ready = new Map<number, number>();
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      scheduler?.clearRecent();
      let done = false;
      const finished = typeof until === 'number' ? Promise.resolve() : until.finally(() => (done = true));
      const probe = setInterval(() => {
        void health.report(3000).then((r) => {
          const status = r.status === 'down' ? 503 : 200;
          ready.set(status, (ready.get(status) ?? 0) + 1);
        });
      }, 250);
      try {
        if (typeof until === 'number') for (let i = 0; i < until; i++) latencies.push(await searchOnce());
        else while (!done) latencies.push(await searchOnce());
        await finished;
      } finally {
        clearInterval(probe);
        loop.disable();
      }
      const stats = scheduler?.stats;
      const sorted = [...latencies].sort((x, y) => x - y);
      return {
        phase,
        searches: sorted.length,
        p50: round(percentile(sorted, 50)),
        p95: round(percentile(sorted, 95)),
        max: round(sorted[sorted.length - 1] ?? NaN),
        ready: [...ready].map(([status, n]) => `${n}x${status}`).join(' ') || '-',
        ms: Math.round(performance.now() - started),
        loop: `${round(loop.percentile(99) / 1e6)} / ${round(loop.max / 1e6)}`,
        leases: stats
          ? `${stats.recentForegroundWaitMs.p95} / ${stats.recentForegroundWaitMs.max}, ${stats.recentBackgroundHoldMs.p95} / ${stats.recentBackgroundHoldMs.max}`
          : '-',
      };
    };

    const phases: Phase[] = [];
    const record = (phase: Phase) => {
      phases.push(phase);
      // Each phase as it ends, so a long run that is stopped still reports what it measured.
      process.stderr.write(`${backend}: ${JSON.stringify(phase)}\n`);
      // Embedded: how the one connection was shared so far (EmbeddedScheduler), where the build has it.
      if (scheduler) process.stderr.write(`${backend}: scheduler ${JSON.stringify(scheduler.stats)}\n`);
    };
    record(await measure('idle', opts.idle));

    const big = syntheticChunks(opts.sections, sentences, 11)
      .map((text, s) => `## Part ${s}\n\n${text}`)
      .join('\n\n');
    await runAsTenant(a, () => ingestion.create(a, { filename: 'a-large.md', content: big }));
    record(
      await measure(
        `during A's ingestion (${opts.sections} sections, ${Math.round(big.length / 1024)} KB)`,
        runAsSystem('bench: ingest a', () => ingestion.processQueue()),
      ),
    );

    if (opts.files > 0) {
      const files = Array.from({ length: opts.files }, (_, i) => ({
        path: `src/module${i}.ts`,
        status: 'added' as const,
        after: codeFile(i),
      }));
      await runAsTenant(a, () => diffs.apply(a, { userId: 'bench', files }));
      record(
        await measure(
          `during A's diff (${opts.files} files)`,
          runAsSystem('bench: index the diff', () => diffs.processQueue()),
        ),
      );
    }

    if (opts.docxSections > 0) {
      const docx = await makeLargeDocx(sentences, opts.docxSections, 4);
      const created = await runAsTenant(a, () =>
        ingestion.create(a, {
          filename: 'a-large.docx',
          content: docx,
          contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        }),
      );
      const stagesBefore = ingestion.stageTimings();
      record(
        await measure(
          `during A's docx (${opts.docxSections} sections, ${(docx.length / 1024 / 1024).toFixed(1)} MB)`,
          runAsSystem('bench: ingest the docx', () => ingestion.processQueue()),
        ),
      );
      const stagesAfter = ingestion.stageTimings();
      const stages = Object.fromEntries(
        Object.entries(stagesAfter).map(([stage, ms]) => [
          stage,
          Math.round(ms - stagesBefore[stage as keyof typeof stagesBefore]),
        ]),
      );
      process.stderr.write(`${backend}: docx ingestion stage ms ${JSON.stringify(stages)}\n`);
      const view = await runAsTenant(a, () => ingestion.get(a, created.id));
      const chunks = `${view.status}, ${view.total_chunks}`;
      process.stderr.write(`${backend}: docx status, chunks: ${chunks}\n`);
    }
    return phases;
  } finally {
    await bench.close();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const which = flag(argv, 'backend') ?? 'both';
  const backends: Backend[] = which === 'both' ? ['native', 'embedded'] : [which as Backend];
  const opts = {
    sections: Number(flag(argv, 'sections') ?? 1500),
    files: Number(flag(argv, 'files') ?? 800),
    idle: Number(flag(argv, 'idle') ?? 60),
    docxSections: Number(flag(argv, 'docx-sections') ?? 0),
  };
  const started = new Date().toISOString();
  const rows: Array<Phase & { backend: Backend }> = [];
  for (const backend of backends) {
    for (const phase of await run(backend, opts)) rows.push({ backend, ...phase });
  }
  console.log(
    `tenant isolation bench, ${started}, load average ${loadAverage()}, options ${JSON.stringify(opts)}`,
  );
  console.log(
    '| backend | tenant B searches | n | p50 ms | p95 ms | max ms | p95 / idle | /health/ready | phase s | event loop delay p99 / max ms | request lease wait p95 / max, background lease p95 / max ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const idle = rows.find((r) => r.backend === row.backend && r.phase === 'idle')!;
    console.log(
      `| ${row.backend} | ${row.phase} | ${row.searches} | ${row.p50} | ${row.p95} | ${row.max} | ${(row.p95 / idle.p95).toFixed(1)}x | ${row.ready} | ${(row.ms / 1000).toFixed(1)} | ${row.loop} | ${row.leases} |`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
