import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createLlmClient,
  InMemoryDocumentMatcher,
  InMemoryPlanningKnowledge,
  LlmClient,
  PlannerConfig,
  PlannerService,
  runnableSteps,
  StagePlanExecutor,
  UnconfiguredLlmClient,
} from '@app/planner';
import { readConfig } from '@app/platform/config';
import { validateEnvironment } from '../../apps/api/src/config-schemas';
import {
  StageExecutorService,
  ToolRegistry,
  ToolsConfig,
  type Tool,
  type ToolDefinition,
  type ToolOutput,
} from '@app/tools';
import { BUILTIN_TOOL_DEFINITIONS, listDemoRunbooks, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';
import { CODE_GRAPH_TOOL, SEARCH_GRAPH_DB_TOOL, SEARCH_VECTOR_DB_TOOL } from '@app/code';
import { gradeQuestion, type LabelledQuestion, type QuestionKind, type QuestionScore } from './grade-plan';

export type { LabelledQuestion, QuestionScore } from './grade-plan';

/** `old`: the planner's own 44 questions; `independent`: 358 written from the tool descriptions only. */
export type QuestionSet =
  'old' | 'independent' | 'independent-2' | 'independent-3' | 'independent-4' | 'file';
/**
 * `tune`/`heldout`: the two parts of the first independent set's split (the held-out part was retired on
 * 2026-11-25 and is tuned on since; it is still reported apart so figures stay comparable); `both`: each
 * part apart; `all`: the 358 questions as one tuning set.
 */
export type Split = 'tune' | 'heldout' | 'both' | 'all';

export interface GroupFigures {
  questions: number;
  toolAccuracy: number;
  paramAccuracy: number;
  params: number;
  invalidPlans: number;
}

export interface SplitReport extends GroupFigures {
  /** `external`: a question file given with --questions, graded in aggregate only (no per-question data). */
  split: 'tune' | 'heldout' | 'all' | 'external';
  invalidPlansExecuted: number;
  /** Steps of valid plans that the tool's own input schema still refused (should be none). */
  inputRejected: number;
  fellBack: number;
  byGroup: Record<string, GroupFigures>;
  /** Tool misses, "expected -> chosen" per tool: missing:<tool> and extra:<tool> counts (not for `external`). */
  confusion: Record<string, number>;
  /** Per-question scores: only ever filled for the tuning part and the old set. */
  scores: QuestionScore[];
}

export interface EvaluationReport {
  mode: 'fallback' | 'llm';
  model: string | null;
  set: QuestionSet;
  knowledge: boolean;
  parts: SplitReport[];
}

export interface EvaluationOptions {
  set?: QuestionSet;
  split?: Split;
  /** A question file in the same format (set `file`): every question is held out, aggregates only. */
  questionsPath?: string;
  /** false: plan as right after a first start, before the tenant's catalog and mappings are published. */
  knowledge?: boolean;
  /**
   * false: no document store (the planner's document signal off). Default: the demo runbooks, which the
   * demo tenant's document store holds and the questions were written against, matched in memory.
   */
  documents?: boolean;
  /** true: only the OPS built-ins and document_search (the tool set measured before 2026-11-26). */
  opsOnly?: boolean;
  /** Folders of tool asset JSON files published for the tenant (its own tools, or unrelated ones). */
  tenantTools?: string[];
  /** false: the tenant's tools carry no planning hints (descriptions and input schemas only). */
  hints?: boolean;
  /** The question file is tuning data (per-question output allowed); never for a held-out set. */
  tuningFile?: boolean;
}

/** Every built-in tool the running service serves to every tenant (OPS, documents, code). */
export const SERVED_BUILTIN_DEFINITIONS: readonly ToolDefinition[] = [
  ...BUILTIN_TOOL_DEFINITIONS,
  SEARCH_VECTOR_DB_TOOL,
  SEARCH_GRAPH_DB_TOOL,
  CODE_GRAPH_TOOL,
];

/** Tool definitions from tool asset files as the registry builds them from a published asset. */
export function toolAssetDefinitions(folder: string, hints: boolean): ToolDefinition[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const asset = JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as {
        name: string;
        description?: string;
        tool_type?: string;
        [key: string]: unknown;
      };
      const config = (asset.tool_config ?? {}) as { method?: string };
      return {
        name: asset.name,
        description: asset.description ?? '',
        kind: asset.tool_type ?? 'http',
        input_schema: (asset.tool_input_schema ?? { type: 'object' }) as Record<string, unknown>,
        output_schema: (asset.tool_output_schema ?? null) as Record<string, unknown> | null,
        has_side_effects:
          typeof asset.has_side_effects === 'boolean' ? asset.has_side_effects : config.method !== 'GET',
        timeout_ms: 10_000,
        source: 'dynamic' as const,
        version: 1,
        ...(hints && asset.planning_hints ? { planning_hints: asset.planning_hints } : {}),
      };
    });
}

const GROUPS: Array<'ko' | 'en' | QuestionKind> = ['ko', 'en', 'single', 'multi', 'document', 'none'];

function loadQuestions(
  set: QuestionSet,
  questionsPath?: string,
): { now: Date; questions: LabelledQuestion[] } {
  if (set === 'file') {
    if (!questionsPath) throw new Error('set "file" needs a questions path');
    const parsed = JSON.parse(readFileSync(path.resolve(questionsPath), 'utf8')) as {
      now?: string;
      questions?: LabelledQuestion[];
    };
    if (!parsed.now || !Array.isArray(parsed.questions))
      throw new Error(
        `${questionsPath}: expected {"now": ISO time, "questions": [...]} like planner-questions-independent.json`,
      );
    return { now: new Date(parsed.now), questions: parsed.questions };
  }
  const file = {
    old: 'planner-questions.json',
    independent: 'planner-questions-independent.json',
    'independent-2': 'planner-questions-independent-2.json',
    'independent-3': 'planner-questions-independent-3.json',
    'independent-4': 'planner-questions-independent-4.json',
  }[set];
  const candidates = [path.join(__dirname, file), path.resolve(__dirname, '../../../bench/planner', file)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`${file} not found (looked in ${candidates.join(', ')})`);
  const parsed = JSON.parse(readFileSync(found, 'utf8')) as { now: string; questions: LabelledQuestion[] };
  return { now: new Date(parsed.now), questions: parsed.questions };
}

function ratio(part: number, whole: number): number {
  return whole ? Math.round((part / whole) * 1000) / 10 : 100;
}

/**
 * A built-in's real definition without its database: the registry still validates every input
 * against the real schema before this runs, which is what the evaluation checks of execution.
 */
class DefinitionOnlyTool implements Tool {
  constructor(readonly definition: ToolDefinition) {}

  execute(): Promise<ToolOutput> {
    return Promise.resolve({ data: {} });
  }
}

function figures(subset: QuestionScore[]): GroupFigures {
  return {
    questions: subset.length,
    toolAccuracy: ratio(subset.filter((s) => s.toolsCorrect).length, subset.length),
    paramAccuracy: ratio(
      subset.reduce((sum, s) => sum + s.paramsCorrect, 0),
      subset.reduce((sum, s) => sum + s.paramsTotal, 0),
    ),
    params: subset.reduce((sum, s) => sum + s.paramsTotal, 0),
    invalidPlans: subset.filter((s) => !s.valid).length,
  };
}

function summarize(split: SplitReport['split'], scores: QuestionScore[], inputRejected: number): SplitReport {
  const confusion: Record<string, number> = {};
  for (const s of scores.filter((q) => !q.toolsCorrect)) {
    for (const tool of s.expected.filter((t) => !s.chosen.includes(t)))
      confusion[`missing:${tool}`] = (confusion[`missing:${tool}`] ?? 0) + 1;
    for (const tool of s.chosen.filter((t) => !s.expected.includes(t)))
      confusion[`extra:${tool}`] = (confusion[`extra:${tool}`] ?? 0) + 1;
    const key = `[${s.expected.join('+') || 'none'}] -> [${s.chosen.join('+') || 'none'}]`;
    confusion[key] = (confusion[key] ?? 0) + 1;
  }
  const byGroup: Record<string, GroupFigures> = {};
  // The usual languages and kinds first, then any other a question file uses.
  const seen = [...new Set(scores.flatMap((s) => [s.lang as string, s.kind as string]))];
  for (const group of [...GROUPS, ...seen.filter((g) => !(GROUPS as string[]).includes(g))]) {
    const subset = scores.filter((s) => s.lang === group || s.kind === group);
    if (subset.length) byGroup[group] = figures(subset);
  }
  return {
    split,
    ...figures(scores),
    invalidPlansExecuted: scores.filter((s) => !s.valid && s.executed).length,
    inputRejected,
    fellBack: scores.filter((s) => s.planner === 'fallback').length,
    byGroup,
    confusion: split === 'external' ? {} : confusion,
    scores: split === 'heldout' || split === 'external' ? [] : scores,
  };
}

/**
 * Plans every labelled question against the real built-in tool definitions, the OPS catalog and the
 * keyword mappings the demo tenant publishes, runs the valid plans through input validation, and grades
 * them. Held-out questions are graded in aggregate only: their per-question scores never leave here.
 */
export async function evaluatePlanner(
  mode: 'fallback' | 'llm',
  llm: LlmClient = new UnconfiguredLlmClient(),
  options: EvaluationOptions = {},
): Promise<EvaluationReport> {
  const set = options.set ?? 'old';
  const split = options.split ?? 'tune';
  const withKnowledge = options.knowledge ?? true;
  const { now, questions } = loadQuestions(set, options.questionsPath);
  const registry = new ToolRegistry({ getProviders: () => [] } as unknown as DiscoveryService);
  const builtins = options.opsOnly ? BUILTIN_TOOL_DEFINITIONS : SERVED_BUILTIN_DEFINITIONS;
  for (const definition of builtins) registry.registerBuiltin(new DefinitionOnlyTool(definition));
  const tenantTools = (options.tenantTools ?? []).flatMap((folder) =>
    toolAssetDefinitions(folder, options.hints ?? true),
  );
  registry.replaceDynamicTools(
    'eval',
    tenantTools.map((definition) => new DefinitionOnlyTool(definition)),
  );
  const definitions = [...builtins, ...tenantTools];
  const knowledge = new InMemoryPlanningKnowledge();
  if (withKnowledge)
    knowledge.set(null, {
      catalog: { name: 'ops', version: 1, content: OPS_CATALOG },
      mappings: { name: 'ops-keywords', version: 1, content: OPS_KEYWORD_MAPPINGS },
    });
  const plannerOptions = { tokenBudget: 6000, maxLimit: 100, maxSteps: 8, executionTimeoutMs: 30_000 };
  const documents =
    (options.documents ?? true) && withKnowledge
      ? new InMemoryDocumentMatcher(listDemoRunbooks().map((runbook) => runbook.content))
      : undefined;
  const planner = new PlannerService(registry, knowledge, llm, plannerOptions, documents);
  // Trained before the first question, as a running service is by the time a tenant asks (training runs
  // in the background after each publish).
  await planner.prepare('eval');
  // The real step engine; runs are not stored (the evaluation has no database).
  const unstoredRuns = { start: () => Promise.resolve(randomUUID()), finish: () => Promise.resolve() };
  const stageConfig = Object.assign(new ToolsConfig(), {
    STAGE_TIMEOUT_MS: plannerOptions.executionTimeoutMs,
    STAGE_MAX_CONCURRENCY: 4,
  });
  const executor = new StagePlanExecutor(
    new StageExecutorService(registry, unstoredRuns as never, stageConfig),
  );

  const wanted: Array<SplitReport['split']> =
    set === 'file'
      ? [options.tuningFile ? 'all' : 'external']
      : set !== 'independent' || split === 'all'
        ? ['all']
        : split === 'both'
          ? ['tune', 'heldout']
          : [split];
  const parts: SplitReport[] = [];
  for (const part of wanted) {
    const subset = questions.filter((q) => part === 'all' || part === 'external' || q.split === part);
    const scores: QuestionScore[] = [];
    let inputRejected = 0;
    for (const question of subset) {
      const outcome = await planner.plan({
        tenantId: 'eval',
        query: question.query,
        now,
        useLlm: mode === 'llm',
      });
      let executed = false;
      if (outcome.valid && outcome.plan?.steps.length) {
        const deadline = Date.now() + plannerOptions.executionTimeoutMs;
        const context = {
          tenantId: 'eval',
          userId: 'eval',
          requestId: question.id,
          traceId: question.id,
          deadline,
          signal: new AbortController().signal,
        };
        const run = await executor.execute(context, runnableSteps(outcome.plan), deadline);
        executed = true;
        inputRejected += run.steps.filter(
          (step) => step.result.error_details?.code === 'INVALID_INPUT',
        ).length;
      }
      scores.push(gradeQuestion(question, outcome, executed, definitions));
    }
    parts.push(summarize(part, scores, inputRejected));
  }
  return { mode, model: mode === 'llm' ? llm.defaultModel : null, set, knowledge: withKnowledge, parts };
}

function line(label: string, f: GroupFigures): string {
  return `  ${label.padEnd(9)} n=${String(f.questions).padStart(3)}  tools ${String(f.toolAccuracy).padStart(5)}%  params ${String(f.paramAccuracy).padStart(5)}% (of ${f.params})  invalid ${f.invalidPlans}\n`;
}

function print(report: EvaluationReport, detail: boolean): void {
  const out = process.stdout;
  out.write(
    `\n== planner evaluation: ${report.mode}${report.model ? ` (${report.model})` : ''}, set ${report.set}${report.knowledge ? '' : ', no published knowledge'} ==\n`,
  );
  for (const part of report.parts) {
    out.write(`-- ${part.split} --\n`);
    out.write(line('overall', part));
    for (const [group, f] of Object.entries(part.byGroup)) out.write(line(group, f));
    out.write(
      `  invalid plans executed: ${part.invalidPlansExecuted}; inputs refused by tools: ${part.inputRejected}${report.mode === 'llm' ? `; fell back to deterministic: ${part.fellBack}` : ''}\n`,
    );
    if (part.split === 'heldout' || part.split === 'external') continue;
    const confusion = Object.entries(part.confusion).sort((a, b) => b[1] - a[1]);
    if (confusion.length) out.write('  tool misses (expected -> chosen):\n');
    for (const [key, count] of confusion) out.write(`    ${String(count).padStart(3)}  ${key}\n`);
    if (!detail) continue;
    for (const s of part.scores.filter((q) => !q.toolsCorrect || q.misses.length || !q.valid)) {
      out.write(
        `  miss ${s.id} [${s.lang} ${s.kind}]: expected [${s.expected.join(', ')}] chose [${s.chosen.join(', ')}]${s.misses.length ? ` params wrong: ${s.misses.join(', ')}` : ''}${s.valid ? '' : ` INVALID ${JSON.stringify(s.errors)}`}\n`,
      );
    }
  }
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const questionsPath = argument('questions');
  const set = (questionsPath ? 'file' : (argument('set') ?? 'independent')) as QuestionSet;
  const split = (argument('split') ?? 'both') as Split;
  if (
    !['old', 'independent', 'independent-2', 'independent-3', 'independent-4', 'file'].includes(set) ||
    !['tune', 'heldout', 'both', 'all'].includes(split)
  )
    throw new Error(
      'usage: eval-planner [--set independent|independent-2|independent-3|independent-4|old] [--split tune|heldout|both|all] [--questions <file>] [--llm] [--no-knowledge] [--no-docs] [--ops-only] [--tenant-tools <folder of tool assets>]... [--no-hints] [--misses] [--json]',
    );
  // --json keeps stdout for the report: the planner's warnings (an LLM call that failed) would go there.
  if (process.argv.includes('--json')) Logger.overrideLogger(['error']);
  const options: EvaluationOptions = {
    set,
    split,
    questionsPath,
    knowledge: !process.argv.includes('--no-knowledge'),
    documents: !process.argv.includes('--no-docs'),
    opsOnly: process.argv.includes('--ops-only'),
    tenantTools: process.argv.flatMap((arg, i) =>
      arg === '--tenant-tools' && process.argv[i + 1] ? [process.argv[i + 1]] : [],
    ),
    hints: !process.argv.includes('--no-hints'),
    tuningFile: process.argv.includes('--tuning'),
  };
  // A question file given with --questions is held out: never any per-question output for it.
  const detail = process.argv.includes('--misses') && (set !== 'file' || process.argv.includes('--tuning'));
  let llm: LlmClient | null = null;
  if (process.argv.includes('--llm')) {
    validateEnvironment(process.env);
    const config = readConfig(PlannerConfig, process.env);
    if (!config.LLM_BASE_URL)
      throw new Error('--llm needs LLM_BASE_URL (and LLM_MODEL, LLM_API_KEY if the endpoint wants them)');
    llm = createLlmClient(config);
  }
  const report = llm
    ? await evaluatePlanner('llm', llm, options)
    : await evaluatePlanner('fallback', undefined, options);
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else print(report, detail);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
