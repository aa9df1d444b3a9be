import {
  analyseQuestion,
  CatalogIndex,
  FallbackPlanner,
  InMemoryDocumentMatcher,
  splitClauses,
} from '@app/planner';
import { BUILTIN_TOOL_DEFINITIONS, listDemoRunbooks, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { SERVED_BUILTIN_DEFINITIONS, toolAssetDefinitions } from './eval-planner';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * Why the fallback planner chose what it chose, for questions typed on the command line:
 * `node dist/bench/planner/explain-plan.js [--without-set N] "question" ...` (after `npm run build`).
 * Prints the clauses, the per-tool scores, the knowledge the question touched and the plan's steps.
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
    ? [...SERVED_BUILTIN_DEFINITIONS, ...toolAssetDefinitions(tenantFolder, true)]
    : [...BUILTIN_TOOL_DEFINITIONS];
  const catalog = new CatalogIndex(OPS_CATALOG);
  const documents = new InMemoryDocumentMatcher(listDemoRunbooks().map((r) => r.content));
  const now = new Date(args.includes('--now') ? args[args.indexOf('--now') + 1] : '2026-11-22T09:00:00Z');
  if (Number.isNaN(now.getTime())) throw new Error('--now takes an ISO time, e.g. 2026-11-22T09:00:00Z');
  for (const query of queries) {
    const input = {
      query,
      tools,
      catalog,
      mappings: OPS_KEYWORD_MAPPINGS,
      now,
      maxLimit: 100,
      documents: documents.passagesFor(query),
    };
    const result = planner.plan(input);
    const analysis = analyseQuestion(query, tools, catalog, OPS_KEYWORD_MAPPINGS, now);
    const features = Object.entries(analysis.features)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${Math.round(v * 100) / 100}`);
    process.stdout.write(
      [
        `== ${query}`,
        `clauses: ${JSON.stringify(splitClauses(query))}`,
        `scores: ${JSON.stringify(Object.fromEntries(Object.entries(result.scores).filter(([, v]) => v > 0)))}`,
        `top: ${result.explain.tools.map((t) => `${t.tool} ${t.score} (ex ${t.examples}, desc ${t.description}${t.hinted ? ', hinted' : ''}${t.mapped ? ', mapped' : ''})`).join('; ')}`,
        `features: ${features.join(' ')}`,
        `mappings: ${analysis.matchedMappings.map((m) => `${m.keyword}->${m.kind}:${m.value}${m.description ? ` (${m.description.slice(0, 20)})` : ''}`).join(', ')}`,
        `identifiers: ${analysis.identifiers.join(', ')}  itemTopics: ${analysis.itemTopics.join(', ')}  textTopics: ${analysis.textTopics.join(', ')}  facts: ${analysis.facts.map((f) => `${f.field}=${f.value}`).join(', ')}`,
        `steps: ${result.plan.steps.map((s) => `${s.id} ${s.tool_type} ${JSON.stringify(s.parameters)}`).join('\n       ')}`,
        `warnings: ${result.warnings.join('; ')}`,
        '',
      ].join('\n'),
    );
  }
}

main();
