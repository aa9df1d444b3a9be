import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CatalogIndex,
  FallbackPlanner,
  InMemoryDocumentMatcher,
  PlanValidator,
  TOOL_OUTPUT_NOUN,
  type PlanOutcome,
} from '@app/planner';
import { BUILTIN_TOOL_DEFINITIONS, listDemoRunbooks, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { gradeQuestion, type QuestionScore } from './grade-plan';
import { readQuestionFile, RETIRED_SETS } from './question-sets';

/**
 * k-fold cross-validation of the fallback planner on the tuning questions only: the classifier learns
 * from k-1 folds and is graded on the fold it never saw. This is the honest figure for the tuning part
 * (the planner as shipped learns from every tuning question). The held-out part is never read here.
 */
/** Headings and bullet lines of the demo runbooks, as document_search examples (experiment). */
function runbookLines(weight: number): Array<{ text: string; tools: string[]; weight: number }> {
  const dir = path.resolve(__dirname, '../../../libs/ops/src/demo/runbooks');
  const lines: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')))
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n'))
      if (/^(#|-|\d+\.)/.test(line.trim()))
        lines.push(
          line
            .replace(/^[#\-\d.\s]+/, '')
            .replace(/`[^`]*`/g, ' ')
            .trim(),
        );
  return lines.filter((l) => l.length > 3).map((text) => ({ text, tools: ['document_search'], weight }));
}

function main(): void {
  const sets = RETIRED_SETS.map((name, i) => {
    const parsed = readQuestionFile(name);
    return {
      now: new Date(parsed.now),
      questions: parsed.questions.map((q) => ({ ...q, writer: String(i + 1) })),
    };
  });
  const now = sets[0].now;
  // --set 1|2 keeps one writer's questions; `--split tune` keeps the first set's original tune part alone.
  const onlySet = process.argv.includes('--set') ? process.argv[process.argv.indexOf('--set') + 1] : 'all';
  const onlySplit = process.argv.includes('--split')
    ? process.argv[process.argv.indexOf('--split') + 1]
    : 'all';
  const tune = sets
    .flatMap((s) => s.questions)
    .filter(
      (q) => (onlySet === 'all' || q.writer === onlySet) && (onlySplit === 'all' || q.split === onlySplit),
    );
  // --leave-out lang|kind|writer: one fold per language, question kind or writer, trained on the others: a
  // proxy for questions written in a style the classifier never saw (writer: the closest to a new held-out set).
  const leaveOut = process.argv.includes('--leave-out')
    ? (process.argv[process.argv.indexOf('--leave-out') + 1] as 'lang' | 'kind' | 'writer')
    : null;
  const groups = leaveOut ? [...new Set(tune.map((q) => q[leaveOut]))] : [];
  const folds = leaveOut ? groups.length : Number(process.argv[process.argv.indexOf('--folds') + 1]) || 5;
  const inFold = (q: (typeof tune)[number], i: number, fold: number) =>
    leaveOut ? q[leaveOut] === groups[fold] : i % folds === fold;
  const tools = [...BUILTIN_TOOL_DEFINITIONS];
  const catalog = new CatalogIndex(OPS_CATALOG);
  const validator = new PlanValidator();
  const scores: QuestionScore[] = [];
  const option = (name: string) =>
    process.argv.includes(`--${name}`)
      ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1])
      : undefined;
  // The document signal: the demo runbooks stand in for the tenant's document store (--no-docs: off).
  const documents = process.argv.includes('--no-docs')
    ? null
    : new InMemoryDocumentMatcher(listDemoRunbooks().map((r) => r.content));
  // --no-doc-vocabulary: drop the mapping keywords that point at document_search (all but the words naming
  // what it returns), to see how the planner does on document questions worded in none of them.
  const mappings = process.argv.includes('--no-doc-vocabulary')
    ? {
        ...OPS_KEYWORD_MAPPINGS,
        mappings: OPS_KEYWORD_MAPPINGS.mappings.filter(
          (m) => !(m.kind === 'tool' && m.value === 'document_search' && m.description !== TOOL_OUTPUT_NOUN),
        ),
      }
    : OPS_KEYWORD_MAPPINGS;
  for (let fold = 0; fold < folds; fold++) {
    const train: Array<{ text: string; tools: string[]; weight?: number }> = tune
      .filter((q, i) => !inFold(q, i, fold))
      .map((q) => ({ text: q.query, tools: q.tools }));
    const runbookWeight = option('runbooks');
    if (runbookWeight !== undefined) train.push(...runbookLines(runbookWeight));
    const planner = new FallbackPlanner(process.argv.includes('--rules-only') ? [] : train, {
      threshold: option('threshold'),
      clauseThreshold: option('clause'),
      mappingWeight: option('mw'),
      evidenceThreshold: option('evidence'),
      l2: option('l2'),
      procedureRule: !process.argv.includes('--no-procedure'),
      epochs: option('epochs'),
      descriptionWeight: option('dw'),
    });
    for (const question of tune.filter((q, i) => inFold(q, i, fold))) {
      const result = planner.plan({
        query: question.query,
        tools,
        catalog,
        mappings,
        now,
        maxLimit: 100,
        documents: documents?.passagesFor(question.query) ?? null,
      });
      const validation = validator.validate(result.plan, { tools, catalog, maxLimit: 100, maxSteps: 8 });
      const outcome = {
        plan: validation.plan ?? result.plan,
        valid: validation.valid,
        planner: 'fallback',
        errors: validation.errors,
        warnings: [],
      } as unknown as PlanOutcome;
      scores.push(gradeQuestion(question, outcome, false, tools));
    }
  }
  const pct = (subset: QuestionScore[]) =>
    Math.round((subset.filter((s) => s.toolsCorrect).length / subset.length) * 1000) / 10;
  const params = (subset: QuestionScore[]) =>
    Math.round(
      (subset.reduce((a, s) => a + s.paramsCorrect, 0) / subset.reduce((a, s) => a + s.paramsTotal, 0)) *
        1000,
    ) / 10;
  process.stdout.write(
    `${leaveOut ? `leave-one-${leaveOut}-out` : `${folds}-fold`} CV on set ${onlySet}, ${onlySplit} (n=${scores.length}): tools ${pct(scores)}%  params ${params(scores)}%  invalid ${scores.filter((s) => !s.valid).length}\n`,
  );
  for (const group of ['ko', 'en', 'single', 'multi', 'document', 'none']) {
    const subset = scores.filter((s) => s.lang === group || s.kind === group);
    process.stdout.write(
      `  ${group.padEnd(9)} n=${subset.length} tools ${pct(subset)}%  params ${params(subset)}%\n`,
    );
  }
  // One line per left-out group (writer, language or kind): the spread between writers is the figure to watch.
  const groupOf = new Map(tune.map((q) => [q.id, leaveOut ? String(q[leaveOut]) : '']));
  for (const group of groups) {
    const subset = scores.filter((s) => groupOf.get(s.id) === String(group));
    process.stdout.write(
      `  left out ${leaveOut}=${String(group).padEnd(8)} n=${subset.length} tools ${pct(subset)}%  params ${params(subset)}%\n`,
    );
  }
  if (process.argv.includes('--misses'))
    for (const s of scores.filter((q) => !q.toolsCorrect || q.misses.length || !q.valid))
      process.stdout.write(
        `  miss ${s.id}: expected [${s.expected.join(', ')}] chose [${s.chosen.join(', ')}] ${s.misses.join(', ')}${s.valid ? '' : ` INVALID ${s.errors.join('; ')}`}\n`,
      );
}

main();
