import type { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createLlmClient,
  InMemoryPlanningKnowledge,
  LlmClient,
  PlannerService,
  StagePlanExecutor,
  UnconfiguredLlmClient,
  type PlanOutcome,
} from '@app/planner';
import { AppConfig, validateEnvironment } from '@app/platform';
import {
  StageExecutorService,
  ToolRegistry,
  type Tool,
  type ToolDefinition,
  type ToolOutput,
} from '@app/tools';
import { BUILTIN_TOOL_DEFINITIONS, OPS_CATALOG, OPS_KEYWORD_MAPPINGS } from '@app/ops';

interface LabelledQuestion {
  id: string;
  lang: 'ko' | 'en';
  kind: 'single' | 'multi' | 'none';
  query: string;
  tools: string[];
  params: Record<string, unknown>;
}

export interface QuestionScore {
  id: string;
  planner: string;
  toolsCorrect: boolean;
  paramsCorrect: number;
  paramsTotal: number;
  valid: boolean;
  executed: boolean;
  chosen: string[];
  misses: string[];
  errors: string[];
}

export interface EvaluationReport {
  mode: 'fallback' | 'llm';
  model: string | null;
  questions: number;
  toolAccuracy: number;
  paramAccuracy: number;
  invalidPlans: number;
  invalidPlansExecuted: number;
  /** Steps of valid plans that the tool's own input schema still refused (should be none). */
  inputRejected: string[];
  fellBack: number;
  byGroup: Record<string, { questions: number; toolAccuracy: number; paramAccuracy: number }>;
  scores: QuestionScore[];
}

function loadQuestions(): { now: Date; questions: LabelledQuestion[] } {
  const candidates = [
    path.join(__dirname, 'planner-questions.json'),
    path.resolve(__dirname, '../../../bench/planner/planner-questions.json'),
  ];
  const file = candidates.find((candidate) => existsSync(candidate));
  if (!file) throw new Error(`planner-questions.json not found (looked in ${candidates.join(', ')})`);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { now: string; questions: LabelledQuestion[] };
  return { now: new Date(parsed.now), questions: parsed.questions };
}

function valueAt(parameters: unknown, keys: string[]): unknown {
  let current = parameters;
  for (const key of keys) current = (current as Record<string, unknown> | undefined)?.[key];
  return current;
}

function matches(actual: unknown, expected: unknown): boolean {
  if (expected && typeof expected === 'object' && '$nonEmpty' in expected) {
    return typeof actual === 'string' ? actual.trim().length > 0 : actual !== undefined && actual !== null;
  }
  if (typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null) {
    const e = expected as Record<string, unknown>;
    return Object.keys(e).every((key) => {
      const a = (actual as Record<string, unknown>)[key];
      return typeof e[key] === 'string' && typeof a === 'string' && !Number.isNaN(Date.parse(a))
        ? Date.parse(a) === Date.parse(e[key])
        : matches(a, e[key]);
    });
  }
  return actual === expected;
}

function score(question: LabelledQuestion, outcome: PlanOutcome, executed: boolean): QuestionScore {
  const steps = outcome.plan?.steps ?? [];
  const chosen = [...new Set(steps.map((s) => s.tool_type))].sort();
  const toolsCorrect = JSON.stringify(chosen) === JSON.stringify([...question.tools].sort());
  const misses: string[] = [];
  let paramsCorrect = 0;
  for (const [label, expected] of Object.entries(question.params)) {
    const [tool, ...keys] = label.split('.');
    const ok = steps.some((s) => s.tool_type === tool && matches(valueAt(s.parameters, keys), expected));
    if (ok) paramsCorrect += 1;
    else misses.push(label);
  }
  return {
    id: question.id,
    planner: outcome.planner,
    toolsCorrect,
    paramsCorrect,
    paramsTotal: Object.keys(question.params).length,
    valid: outcome.valid,
    executed,
    chosen,
    misses,
    errors: outcome.errors.map((e) => `${e.step_id ?? '-'} ${e.code} ${e.path}: ${e.message}`),
  };
}

function ratio(part: number, whole: number): number {
  return whole ? Math.round((part / whole) * 1000) / 10 : 100;
}

/**
 * A built-in's real definition without its database: the registry still validates every input
 * against the real schema before this runs, which is what the evaluation checks of execution.
 */
class DefinitionOnlyTool implements Tool {
  readonly calls: Array<Record<string, unknown>> = [];
  constructor(readonly definition: ToolDefinition) {}

  execute(_context: unknown, input: Record<string, unknown>): Promise<ToolOutput> {
    this.calls.push(input);
    return Promise.resolve({ data: {} });
  }
}

/**
 * Plans every labelled question against the real built-in tool definitions, the OPS catalog and the
 * keyword mappings the demo tenant publishes, runs the valid plans through input validation, and scores it.
 */
export async function evaluatePlanner(
  mode: 'fallback' | 'llm',
  llm: LlmClient = new UnconfiguredLlmClient(),
): Promise<EvaluationReport> {
  const { now, questions } = loadQuestions();
  const registry = new ToolRegistry({ getProviders: () => [] } as unknown as DiscoveryService);
  for (const definition of BUILTIN_TOOL_DEFINITIONS)
    registry.registerBuiltin(new DefinitionOnlyTool(definition));
  const knowledge = new InMemoryPlanningKnowledge();
  knowledge.set(null, {
    catalog: { name: 'ops', version: 1, content: OPS_CATALOG },
    mappings: { name: 'ops-keywords', version: 1, content: OPS_KEYWORD_MAPPINGS },
  });
  const options = { tokenBudget: 6000, maxLimit: 100, maxSteps: 8, executionTimeoutMs: 30_000 };
  const planner = new PlannerService(registry, knowledge, llm, options);
  // The real step engine; runs are not stored (the evaluation has no database).
  const unstoredRuns = { start: () => Promise.resolve(randomUUID()), finish: () => Promise.resolve() };
  const stageConfig = {
    get: (key: string) => ({ STAGE_TIMEOUT_MS: options.executionTimeoutMs, STAGE_MAX_CONCURRENCY: 4 })[key],
  } as unknown as AppConfig;
  const executor = new StagePlanExecutor(
    new StageExecutorService(registry, unstoredRuns as never, stageConfig),
  );

  const scores: QuestionScore[] = [];
  const inputRejected: string[] = [];
  for (const question of questions) {
    const outcome = await planner.plan({
      tenantId: 'eval',
      query: question.query,
      now,
      useLlm: mode === 'llm',
    });
    let executed = false;
    if (outcome.valid && outcome.plan?.steps.length) {
      const deadline = Date.now() + options.executionTimeoutMs;
      const context = {
        tenantId: 'eval',
        userId: 'eval',
        requestId: question.id,
        traceId: question.id,
        deadline,
        signal: new AbortController().signal,
      };
      const run = await executor.execute(context, outcome.plan.steps, deadline);
      executed = true;
      for (const step of run.steps)
        if (step.result.error_details?.code === 'INVALID_INPUT')
          inputRejected.push(`${question.id}/${step.step_id}: ${JSON.stringify(step.result.error_details)}`);
    }
    scores.push(score(question, outcome, executed));
  }

  const summarize = (subset: QuestionScore[]) => ({
    questions: subset.length,
    toolAccuracy: ratio(subset.filter((s) => s.toolsCorrect).length, subset.length),
    paramAccuracy: ratio(
      subset.reduce((sum, s) => sum + s.paramsCorrect, 0),
      subset.reduce((sum, s) => sum + s.paramsTotal, 0),
    ),
  });
  const byGroup: EvaluationReport['byGroup'] = {};
  for (const key of ['ko', 'en', 'single', 'multi', 'none']) {
    const ids = new Set(questions.filter((q) => q.lang === key || q.kind === key).map((q) => q.id));
    byGroup[key] = summarize(scores.filter((s) => ids.has(s.id)));
  }
  const all = summarize(scores);
  return {
    mode,
    model: mode === 'llm' ? llm.defaultModel : null,
    questions: scores.length,
    toolAccuracy: all.toolAccuracy,
    paramAccuracy: all.paramAccuracy,
    invalidPlans: scores.filter((s) => !s.valid).length,
    invalidPlansExecuted: scores.filter((s) => !s.valid && s.executed).length,
    inputRejected,
    fellBack: scores.filter((s) => s.planner === 'fallback').length,
    byGroup,
    scores,
  };
}

function print(report: EvaluationReport): void {
  const out = process.stdout;
  out.write(`\n== planner evaluation: ${report.mode}${report.model ? ` (${report.model})` : ''} ==\n`);
  out.write(`questions:               ${report.questions}\n`);
  out.write(`tool-selection accuracy: ${report.toolAccuracy}%\n`);
  out.write(`parameter accuracy:      ${report.paramAccuracy}%\n`);
  out.write(`invalid plans:           ${report.invalidPlans} (executed: ${report.invalidPlansExecuted})\n`);
  out.write(`inputs refused by tools:  ${report.inputRejected.length}\n`);
  for (const refused of report.inputRejected) out.write(`  refused ${refused}\n`);
  if (report.mode === 'llm') out.write(`fell back to deterministic: ${report.fellBack}\n`);
  for (const [group, s] of Object.entries(report.byGroup)) {
    out.write(
      `  ${group.padEnd(7)} n=${String(s.questions).padStart(2)}  tools ${s.toolAccuracy}%  params ${s.paramAccuracy}%\n`,
    );
  }
  for (const s of report.scores.filter((q) => !q.toolsCorrect || q.misses.length || !q.valid)) {
    out.write(
      `  miss ${s.id}: chose [${s.chosen.join(', ')}]${s.misses.length ? ` params wrong: ${s.misses.join(', ')}` : ''}${s.valid ? '' : ' INVALID'}\n`,
    );
  }
}

async function main(): Promise<void> {
  const fallback = await evaluatePlanner('fallback');
  print(fallback);
  const env = validateEnvironment(process.env);
  if (env.LLM_BASE_URL) {
    const config = { get: (key: keyof typeof env) => env[key] } as unknown as AppConfig;
    print(await evaluatePlanner('llm', createLlmClient(config)));
  } else {
    process.stdout.write('\n(LLM_BASE_URL not set: LLM evaluation skipped)\n');
  }
  if (process.argv.includes('--errors'))
    for (const s of fallback.scores.filter((q) => !q.valid))
      process.stdout.write(`${s.id}: ${JSON.stringify(s.errors)}\n`);
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(fallback, null, 2)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
