import {
  CatalogIndex,
  contentKnowledgeVersion,
  explainPlan,
  FallbackPlanner,
  InMemoryDocumentMatcher,
  type PlanExplanation,
} from '@app/planner';
import { BUILTIN_TOOL_DEFINITIONS, listDemoRunbooks, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { SERVED_BUILTIN_DEFINITIONS, toolAssetDefinitions } from './eval-planner';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/** The explanation as lines for a terminal (the API returns the same object as `explain`). */
function formatExplanation(explain: PlanExplanation, features: Record<string, number>): string[] {
  const touched = explain.knowledge.touched;
  return [
    `knowledge: ${explain.knowledge.version} (classifier ${explain.classifier})`,
    `clauses: ${JSON.stringify(explain.clauses)}`,
    `thresholds: tool ${explain.thresholds.tool}, with own evidence ${explain.thresholds.evidence}, clause ${explain.thresholds.clause}, classifier from ${explain.thresholds.min_examples} examples`,
    ...explain.tools.map((tool) =>
      [
        `${tool.chosen ? '+' : '-'} ${tool.tool} ${tool.score} (${tool.scored_by}, ${tool.labelled_examples} examples): ${tool.decision}`,
        ...tool.evidence.map(
          (e) =>
            `    ${e.against ? 'against ' : ''}${e.source}${e.value !== undefined ? ` ${e.value}` : ''}: ${e.text}${e.matched?.length ? ` [${e.matched.join(', ')}]` : ''}`,
        ),
      ].join('\n'),
    ),
    `features: ${Object.entries(features)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${Math.round(v * 100) / 100}`)
      .join(' ')}`,
    `keywords: ${touched.keywords.map((k) => `${k.keyword}->${k.kind}:${k.value}${k.hint ? ' (hint)' : ''}`).join(', ')}`,
    `facts: ${touched.facts.map((f) => `${f.field}=${f.value}`).join(', ')}  items: ${touched.items.join(', ')}  topics: ${touched.topics.join(', ')}`,
    `parameters: ${explain.parameters.map((p) => `${p.step_id}.${p.name}=${JSON.stringify(p.value)} <- ${p.source} (${p.detail})`).join('\n            ')}`,
  ];
}

/**
 * Why the fallback planner chose what it chose, for questions typed on the command line:
 * `node dist/bench/planner/explain-plan.js [--without-set N] "question" ...` (after `npm run build`).
 * Prints the explanation `/ops/plan` returns with `explain: true` (explainPlan, one implementation): the
 * clauses, per tool its score, threshold, evidence and decision, the knowledge the question touched, each
 * parameter's source, and the plan's steps.
 * `--without-set N` trains the classifier without the Nth retired set (to see a question as a new
 * writer's question, the way leave-one-writer-out CV does). Time phrases are read as of the question sets'
 * reference time, 2026-11-22T09:00Z, unless `--now <ISO time>` says otherwise. `--tenant-tools <folder>` plans
 * over the served tools plus a tenant's tool assets, trained on the published examples (as the service does).
 */
function main(): void {
  const args = process.argv.slice(2);
  const without = args.includes('--without-set') ? Number(args[args.indexOf('--without-set') + 1]) : 0;
  const queries = args.filter(
    (a, i) => !a.startsWith('--') && !['--without-set', '--now', '--tenant-tools'].includes(args[i - 1]),
  );
  const tenantFolder = args.includes('--tenant-tools') ? args[args.indexOf('--tenant-tools') + 1] : null;
  const examples = tenantFolder
    ? null
    : RETIRED_SETS.flatMap((name, i) =>
        i + 1 === without
          ? []
          : readQuestionFile(name).questions.map((q) => ({ text: q.query, tools: q.tools })),
      );
  const planner = new FallbackPlanner(examples, { trainSynchronously: true });
  const tools = tenantFolder
    ? [...SERVED_BUILTIN_DEFINITIONS, ...toolAssetDefinitions(tenantFolder, !args.includes('--no-hints'))]
    : [...BUILTIN_TOOL_DEFINITIONS];
  // --no-knowledge: a new tenant's planner (no OPS catalog, mappings or runbooks), as the second-domain sets run.
  const bare = args.includes('--no-knowledge');
  const catalog = new CatalogIndex(bare ? null : OPS_CATALOG);
  const mappings = bare ? null : OPS_KEYWORD_MAPPINGS;
  const documents = new InMemoryDocumentMatcher(listDemoRunbooks().map((r) => r.content));
  const now = new Date(args.includes('--now') ? args[args.indexOf('--now') + 1] : '2026-11-22T09:00:00Z');
  if (Number.isNaN(now.getTime())) throw new Error('--now takes an ISO time, e.g. 2026-11-22T09:00:00Z');
  for (const query of queries) {
    const input = {
      query,
      tools,
      catalog,
      mappings,
      now,
      maxLimit: 100,
      documents: bare ? null : documents.passagesFor(query),
    };
    const result = planner.plan({ ...input, explain: true });
    const trace = result.trace!;
    const explain = explainPlan({
      query,
      tools,
      trace,
      mappings,
      knowledge: {
        version: contentKnowledgeVersion(tools, mappings, bare ? null : OPS_CATALOG),
        mappings: null,
        catalogs: [],
        resolvers: [],
      },
      planner: {
        source: 'fallback',
        reason: 'llm_not_configured',
        message: 'the deterministic planner alone',
      },
      plan: result.plan,
      rawPlan: result.plan,
      llm: null,
    });
    process.stdout.write(
      [
        `== ${query}`,
        ...formatExplanation(explain, trace.analysis.features),
        `steps: ${result.plan.steps.map((s) => `${s.id} ${s.tool_type} ${JSON.stringify(s.parameters)}`).join('\n       ')}`,
        `warnings: ${result.warnings.join('; ')}`,
        '',
      ].join('\n'),
    );
  }
}

main();
