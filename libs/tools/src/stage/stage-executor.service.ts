import { Injectable, Optional } from '@nestjs/common';
import { PublishedAssetReader } from '@app/asset-registry';
import { type RunEventSink } from '@app/platform';
import { BoundedSemaphore } from '../core/bounded-semaphore';
import { SchemaValidator } from '../core/schema-validator';
import { ToolRegistry } from '../core/tool-registry';
import { failedToolResult } from '../core/tool-result';
import { ToolCaller, ToolContext, ToolResult } from '../core/tool.types';
import {
  outputMappingProblems,
  PlannedStep,
  planStage,
  resolveRefs,
  StageStepRequest,
  StepReferenceError,
} from './stage-plan.util';
import { SeedPlanShape } from './seed-plan-shape';
import { SeedPlan, seedPlanToStage } from './seed-plan.util';
import { StageException, StageProblem } from './stage.exception';
import { StageRunEntity, StageRunStatus } from './stage-run.entity';
import { StageRunQuery, StageRunRepository } from './stage-run.repository';
import { ToolsConfig } from '../tools.config';

/** One stage: steps (parallel where independent) and, optionally, an output mapping over their results. */
export interface StageDefinition {
  stage_name: string;
  tools: StageStepRequest[];
  /** Names to references over the steps' results (`{"$ref": "<step>.<path>"}`): the stage's `output`. */
  output_mapping?: Record<string, unknown>;
  /** When a step of this stage does not succeed: stop the run (default) or go on with the next stage. */
  on_failure?: 'stop' | 'continue';
}

/** A single stage run (`POST /ops/stage/execute` with `stage_name` and `tools`, and every plan run). */
export interface StageRequest extends StageDefinition {
  timeout_ms?: number;
  /** The question a plan answers (plans run by /ops/ask and the agent), kept with the stored run. */
  question?: string;
  /** What produced the run (for /ops/ask: the planner and the knowledge version), kept with it. */
  origin?: Record<string, unknown>;
}

/**
 * Several stages run in order as one run: each stage's steps in parallel, a later stage's inputs
 * referencing an earlier stage's output (`{"$ref": "<stage>.output.<name>"}`) or the run's parameters
 * (`{"$ref": "params.<name>"}`).
 */
export interface StageChainRequest {
  run_name: string;
  stages: StageDefinition[];
  params?: Record<string, unknown>;
  timeout_ms?: number;
  question?: string;
  /** Recorded with the run: what produced it (a published stage asset and its version, a seed plan). */
  origin?: Record<string, unknown>;
}

/** A published `stage` asset's content (validated by the asset registry's StageContent schema). */
interface PublishedStageContent {
  params_schema?: Record<string, unknown>;
  timeout_ms?: number;
  stages: StageDefinition[];
}

/** What `POST /ops/stage/execute` accepts (see `executeRequest`). */
export interface StageRunRequest {
  stage_name?: string;
  tools?: StageStepRequest[];
  output_mapping?: Record<string, unknown>;
  stages?: StageDefinition[];
  stage?: string;
  params?: Record<string, unknown>;
  plan?: Record<string, unknown>;
  timeout_ms?: number;
}

/** How one stage of a run ended, with its mapped output. */
export interface StageOutcome {
  stage_name: string;
  status: StageRunStatus | 'skipped';
  output: Record<string, unknown> | null;
}

export type StepStatus = 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface StageStepResult {
  id: string;
  /** The stage the step belongs to (runs of several stages). */
  stage?: string;
  tool_name: string;
  /** The data source the step's tool reads (its `source_ref`), when it declares one. */
  source?: string;
  depends_on: string[];
  status: StepStatus;
  /** Milliseconds from the start of the stage. */
  queued_at_ms: number;
  started_at_ms: number | null;
  duration_ms: number;
  /** The input the tool ran with, references resolved; null when the step did not run. */
  input: Record<string, unknown> | null;
  result: ToolResult;
}

/** A stored run in a listing: what ran, how it ended, without the step results. */
/** The ids that find a run from a log line or a user's complaint. */
export interface StageRunIds {
  user_id: string;
  request_id: string | null;
  trace_id: string | null;
  /** Who drove the run: operator (an HTTP request), plan (/ops/ask), agent, mcp. */
  caller: string | null;
  key_id: string | null;
}

export interface StageRunSummary extends StageRunIds {
  run_id: string;
  stage_name: string;
  status: StageRunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  summary: { total: number; succeeded: number; failed: number };
}

export interface StageRunView extends Partial<StageRunIds> {
  run_id: string;
  stage_name: string;
  /** `running` while the stage runs (a stored run read back early); then ok, partial or failed. */
  status: StageRunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  summary: { total: number; succeeded: number; failed: number };
  /** The output mapping's values (the last stage's, for a run of several stages); null without a mapping. */
  output: Record<string, unknown> | null;
  /** Each stage's outcome, for runs of several stages. */
  stages?: StageOutcome[];
  /** Output references that could not be resolved, stages not run, fields of a plan not sent. */
  warnings: string[];
  /** For a seed 004 plan: the seed's ExecuteOutput (each part's ToolResult, null when absent). */
  execute_output?: Record<string, unknown>;
  /**
   * What produced the run, when recorded: a published stage asset and its version; for a plan run by /ops/ask
   * the planner and the `knowledge_version` the plan was made with.
   */
  origin?: Record<string, unknown>;
  results: StageStepResult[];
}

function runIds(run: StageRunEntity): StageRunIds {
  return {
    user_id: run.userId,
    request_id: run.requestId,
    trace_id: run.traceId,
    caller: run.caller,
    key_id: run.keyId,
  };
}

export interface StageCaller {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
  /** The operator sent `confirm: true`: steps with side effects run instead of being held. */
  confirmed?: boolean;
  /** Who drives the stage (default `operator`: a person's HTTP request); plans run as `planner` or `agent`. */
  caller?: ToolCaller;
  /** The API key id of the request, stored with the run. */
  keyId?: string;
  /** An outer deadline (epoch ms) the stage may not run past, e.g. the /ops/ask request's. */
  deadline?: number;
  /** A streamed request's progress: `step.started` and `tool.result` per step. */
  onEvent?: RunEventSink;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Runs a stage: each step starts as soon as the steps it depends on have finished (so independent
 * steps run in parallel, up to STAGE_MAX_CONCURRENCY), with its references resolved from their
 * results, its own timeout and the stage deadline, and the caller's cancellation. Every step ends
 * with a ToolResult; the run is stored.
 */
@Injectable()
export class StageExecutorService {
  private readonly validator = new SchemaValidator();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly runs: StageRunRepository,
    private readonly config: ToolsConfig,
    @Optional() private readonly published?: PublishedAssetReader,
    @Optional() private readonly seedPlan?: SeedPlanShape,
  ) {}

  /**
   * The HTTP request's four forms: one stage (`stage_name` + `tools`), several stages (`stages`), a
   * published stage asset by name (`stage` + `params`), or the seeds' plan shape (`plan`).
   */
  async executeRequest(
    caller: StageCaller,
    request: StageRunRequest,
    signal: AbortSignal,
  ): Promise<StageRunView> {
    const forms = (['tools', 'stages', 'stage', 'plan'] as const).filter((f) => request[f] !== undefined);
    if (forms.length !== 1)
      throw StageException.invalid([
        {
          step: 'request',
          problem: 'invalid_request',
          message: forms.length
            ? `send one of tools, stages, stage or plan, not ${forms.join(' and ')}`
            : 'send tools (with stage_name), stages, stage (a published stage name) or plan',
        },
      ]);
    const common = { timeout_ms: request.timeout_ms };
    switch (forms[0]) {
      case 'tools':
        if (!request.stage_name)
          throw StageException.invalid([
            { step: 'request', problem: 'invalid_request', message: 'stage_name is required with tools' },
          ]);
        return this.execute(
          caller,
          {
            stage_name: request.stage_name,
            tools: request.tools!,
            output_mapping: request.output_mapping,
            ...common,
          },
          signal,
        );
      case 'stages':
        return this.executeChain(
          caller,
          {
            run_name: request.stage_name ?? request.stages!.map((s) => s.stage_name).join('+'),
            stages: request.stages!,
            params: request.params,
            ...common,
          },
          signal,
        );
      case 'stage':
        return this.executePublished(caller, request.stage!, request.params ?? {}, signal, common);
      case 'plan': {
        const parts = this.seedPlan?.parts();
        if (!parts)
          throw StageException.invalid([
            {
              step: 'plan',
              problem: 'invalid_request',
              message: 'No plan shape is registered in this service.',
            },
          ]);
        const { stage, absent, warnings } = seedPlanToStage(request.plan as SeedPlan, parts, (tool) =>
          this.registry.definition(caller.tenantId, tool),
        );
        const view = await this.execute(caller, { ...stage, ...common }, signal);
        const executeOutput = { ...view.output, ...Object.fromEntries(absent.map((key) => [key, null])) };
        return { ...view, warnings: [...warnings, ...view.warnings], execute_output: executeOutput };
      }
    }
  }

  /**
   * Runs the tenant's published stage asset `name` (what a CI pipeline calls): its parameters are
   * checked against the asset's params_schema (defaults filled) and are referenced as `params.<name>`.
   */
  async executePublished(
    caller: StageCaller,
    name: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    options: { timeout_ms?: number } = {},
  ): Promise<StageRunView> {
    const asset = await this.published?.getPublished(caller.tenantId, 'stage', name);
    if (!asset) throw StageException.stageNotFound(name);
    const content = asset.snapshot.content as PublishedStageContent;
    const checked = structuredClone(params);
    if (content.params_schema) {
      const issues = this.validator.compile(content.params_schema).check(checked);
      if (issues.length)
        throw StageException.invalid(
          issues.map((issue) => ({
            step: 'params',
            problem: 'invalid_params' as const,
            message: `params${issue.path === '/' ? '' : issue.path}: ${issue.message}`,
          })),
        );
    }
    return this.executeChain(
      caller,
      {
        run_name: name,
        stages: content.stages,
        params: checked,
        timeout_ms: options.timeout_ms ?? content.timeout_ms,
        origin: { stage_asset: name, version: asset.version },
      },
      signal,
    );
  }

  /**
   * The publish-time check of a stage asset (registered on the asset registry's content-check port):
   * every tool exists for the tenant, every reference names an earlier step, stage or `params`, the
   * params schema compiles. The same wiring check a run does, before anything runs.
   */
  checkStageAsset(tenantId: string, content: unknown): string[] {
    const stage = content as PublishedStageContent;
    const problems: string[] = [];
    if (stage.params_schema) {
      try {
        this.validator.compile(stage.params_schema);
      } catch (error) {
        problems.push(`params_schema: ${(error as Error).message}`);
      }
    }
    try {
      this.planStages(tenantId, stage.stages, false);
    } catch (error) {
      if (!(error instanceof StageException)) throw error;
      problems.push(...(error.details as { problems: StageProblem[] }).problems.map((p) => p.message));
    }
    return problems;
  }

  /** Runs one stage (its steps, its output mapping) and stores the run. */
  execute(caller: StageCaller, request: StageRequest, signal: AbortSignal): Promise<StageRunView> {
    return this.run(
      caller,
      {
        run_name: request.stage_name,
        stages: [request],
        timeout_ms: request.timeout_ms,
        question: request.question,
      },
      signal,
      { single: true },
    );
  }

  /** Runs several stages in order as one stored run. */
  executeChain(caller: StageCaller, request: StageChainRequest, signal: AbortSignal): Promise<StageRunView> {
    return this.run(caller, request, signal, { single: false });
  }

  private async run(
    caller: StageCaller,
    request: StageChainRequest,
    signal: AbortSignal,
    shape: { single: boolean },
  ): Promise<StageRunView> {
    const planned = this.planStages(caller.tenantId, request.stages, shape.single);
    const startedAt = new Date();
    const started = performance.now();
    const ownDeadline = Date.now() + (request.timeout_ms ?? this.config.STAGE_TIMEOUT_MS);
    const deadline = caller.deadline ? Math.min(caller.deadline, ownDeadline) : ownDeadline;
    const runId = await this.runs.start({
      tenantId: caller.tenantId,
      stageName: request.run_name,
      userId: caller.userId,
      requestId: caller.requestId || null,
      traceId: caller.traceId || null,
      caller: caller.caller ?? 'operator',
      keyId: caller.keyId ?? null,
      request: shape.single ? { ...request.stages[0], question: request.question } : { ...request },
      startedAt,
    });

    // What references may name besides the running stage's own steps: `params`, earlier stages.
    const scope = new Map<string, unknown>([['params', request.params ?? {}]]);
    const results: StageStepResult[] = [];
    const outcomes: StageOutcome[] = [];
    const warnings: string[] = [];
    let stoppedBy: string | null = null;
    for (const { definition, steps } of planned) {
      const tag = shape.single ? undefined : definition.stage_name;
      if (stoppedBy !== null) {
        const message = `Not run: stage "${stoppedBy}" did not succeed and stops the run.`;
        for (const step of steps)
          results.push({
            id: step.id,
            ...(tag ? { stage: tag } : {}),
            tool_name: step.tool_name,
            ...this.sourceOf(caller.tenantId, step.tool_name),
            depends_on: step.depends_on,
            status: 'skipped',
            queued_at_ms: round(performance.now() - started),
            started_at_ms: null,
            duration_ms: 0,
            input: null,
            result: failedToolResult(step.tool_name, 'STAGE_NOT_RUN', message, { stopped_by: stoppedBy }),
          });
        outcomes.push({ stage_name: definition.stage_name, status: 'skipped', output: null });
        warnings.push(`${definition.stage_name}: ${message}`);
        continue;
      }
      const { stepResults, byId } = await this.runSteps(caller, steps, scope, {
        started,
        deadline,
        signal,
        tag,
      });
      results.push(...stepResults);
      const output = mapOutput(definition.output_mapping, new Map([...scope, ...byId]), warnings, tag);
      const succeeded = stepResults.filter((r) => r.status === 'succeeded').length;
      const status: StageRunStatus =
        succeeded === stepResults.length ? 'ok' : succeeded === 0 ? 'failed' : 'partial';
      outcomes.push({ stage_name: definition.stage_name, status, output });
      scope.set(definition.stage_name, { output, results: Object.fromEntries(byId) });
      if (status !== 'ok' && (definition.on_failure ?? 'stop') === 'stop') stoppedBy = definition.stage_name;
    }

    const succeeded = results.filter((r) => r.status === 'succeeded').length;
    const status: StageRunStatus =
      succeeded === results.length ? 'ok' : succeeded === 0 ? 'failed' : 'partial';
    const finishedAt = new Date();
    const durationMs = round(performance.now() - started);
    const executed = outcomes.filter((o) => o.status !== 'skipped');
    const output = executed.length ? executed[executed.length - 1].output : null;
    const stored = { output, ...(shape.single ? {} : { stages: outcomes }), warnings };
    await this.runs.finish(runId, status, results, finishedAt, durationMs, stored);
    return {
      run_id: runId,
      stage_name: request.run_name,
      status,
      user_id: caller.userId,
      request_id: caller.requestId || null,
      trace_id: caller.traceId || null,
      caller: caller.caller ?? 'operator',
      key_id: caller.keyId ?? null,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_ms: durationMs,
      summary: { total: results.length, succeeded, failed: results.length - succeeded },
      ...stored,
      results,
    };
  }

  /** Checks every stage's wiring before anything runs; one 400 with every problem of every stage. */
  private planStages(
    tenantId: string,
    stages: StageDefinition[],
    single: boolean,
  ): Array<{ definition: StageDefinition; steps: PlannedStep[] }> {
    const problems: StageProblem[] = [];
    const external = new Set<string>(['params']);
    const planned: Array<{ definition: StageDefinition; steps: PlannedStep[] }> = [];
    for (const definition of stages) {
      const prefix = single ? '' : `stage "${definition.stage_name}": `;
      if (!single && external.has(definition.stage_name))
        problems.push({
          step: definition.stage_name,
          problem: 'duplicate_id',
          message: `stage name "${definition.stage_name}" is used twice (or is "params")`,
        });
      let steps: PlannedStep[] = [];
      try {
        steps = planStage(definition.tools, (name) => this.registry.has(tenantId, name), external);
      } catch (error) {
        if (!(error instanceof StageException)) throw error;
        for (const problem of (error.details as { problems: StageProblem[] }).problems)
          problems.push({ ...problem, message: prefix + problem.message });
      }
      const names = new Set([...external, ...definition.tools.map((t, i) => t.id ?? `step${i + 1}`)]);
      for (const problem of outputMappingProblems(definition.output_mapping, names))
        problems.push({ ...problem, message: prefix + problem.message });
      planned.push({ definition, steps });
      external.add(definition.stage_name);
    }
    if (problems.length) throw StageException.invalid(problems);
    return planned;
  }

  /** `{ source }` for a step whose tool declares the data source it reads, else nothing. */
  private sourceOf(tenantId: string, toolName: string): { source?: string } {
    const ref = this.registry.definition(tenantId, toolName)?.source_ref;
    return ref ? { source: ref } : {};
  }

  /**
   * Runs one stage's steps: each starts as soon as the steps it depends on have finished (so
   * independent steps run in parallel, up to STAGE_MAX_CONCURRENCY), with its references resolved
   * from their results and the run's scope, its own timeout and the run deadline, and the caller's
   * cancellation. Every step ends with a ToolResult.
   */
  private async runSteps(
    caller: StageCaller,
    steps: PlannedStep[],
    scope: ReadonlyMap<string, unknown>,
    run: { started: number; deadline: number; signal: AbortSignal; tag?: string },
  ): Promise<{ stepResults: StageStepResult[]; byId: Map<string, ToolResult> }> {
    const { started, deadline, signal, tag } = run;
    const semaphore = new BoundedSemaphore(this.config.STAGE_MAX_CONCURRENCY);
    const outcomes = new Map<string, Promise<StageStepResult>>();
    const resultsById = new Map<string, ToolResult>();
    const runStep = async (step: PlannedStep): Promise<StageStepResult> => {
      const dependencies = await Promise.all(step.depends_on.map((id) => outcomes.get(id)!));
      const queuedAt = performance.now() - started;
      let input: Record<string, unknown> | null = null;
      const done = (status: StepStatus, result: ToolResult, startedAtMs: number | null): StageStepResult => {
        resultsById.set(step.id, result);
        return {
          id: step.id,
          ...(tag ? { stage: tag } : {}),
          tool_name: step.tool_name,
          ...this.sourceOf(caller.tenantId, step.tool_name),
          depends_on: step.depends_on,
          status,
          queued_at_ms: round(queuedAt),
          started_at_ms: startedAtMs === null ? null : round(startedAtMs),
          duration_ms: startedAtMs === null ? 0 : round(performance.now() - started - startedAtMs),
          input: startedAtMs === null ? null : input,
          result,
        };
      };
      const failed = dependencies.filter((d) => d.status !== 'succeeded').map((d) => d.id);
      if (failed.length)
        return done(
          'skipped',
          failedToolResult(
            step.tool_name,
            'DEPENDENCY_FAILED',
            `Skipped: ${failed.join(', ')} did not succeed.`,
            {
              failed_steps: failed,
            },
          ),
          null,
        );
      try {
        input = resolveRefs(step.input, new Map([...scope, ...resultsById])) as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof StepReferenceError)) throw error;
        return done('failed', failedToolResult(step.tool_name, 'REFERENCE_UNRESOLVED', error.message), null);
      }
      const release = (await semaphore.acquire())!;
      try {
        if (signal.aborted)
          return done(
            'cancelled',
            failedToolResult(step.tool_name, 'CANCELLED', 'The stage was cancelled.'),
            null,
          );
        const startedAtMs = performance.now() - started;
        caller.onEvent?.('step.started', { step: 'tool', id: step.id, tool: step.tool_name, input });
        const context: ToolContext = {
          tenantId: caller.tenantId,
          userId: caller.userId,
          requestId: caller.requestId,
          traceId: caller.traceId,
          confirmed: caller.confirmed,
          caller: caller.caller ?? 'operator',
          deadline: step.timeout_ms ? Math.min(deadline, Date.now() + step.timeout_ms) : deadline,
          signal,
        };
        const result = await this.registry
          .execute(context, step.tool_name, input)
          .catch((error: Error) => failedToolResult(step.tool_name, 'EXECUTION_FAILED', error.message));
        const cancelled = !result.success && result.error_details?.code === 'CANCELLED';
        const ended = done(
          result.success ? 'succeeded' : cancelled ? 'cancelled' : 'failed',
          result,
          startedAtMs,
        );
        caller.onEvent?.('tool.result', {
          step: 'tool',
          id: step.id,
          tool: step.tool_name,
          status: ended.status,
          success: result.success,
          error: result.error,
          duration_ms: ended.duration_ms,
          ...(result.pending_action ? { pending_action: result.pending_action } : {}),
        });
        return ended;
      } finally {
        release();
      }
    };
    for (const step of steps) outcomes.set(step.id, runStep(step));
    const stepResults = await Promise.all(steps.map((s) => outcomes.get(s.id)!));
    return { stepResults, byId: resultsById };
  }

  /** The tenant's stored runs, newest first: stages run over HTTP, and plans run by /ops/ask and the agent. */
  async list(tenantId: string, query: StageRunQuery): Promise<{ runs: StageRunSummary[]; total: number }> {
    const { rows, total } = await this.runs.list(tenantId, query);
    return {
      total,
      runs: rows.map((run) => ({
        run_id: run.id,
        stage_name: run.stageName,
        status: run.status,
        ...runIds(run),
        started_at: run.startedAt.toISOString(),
        finished_at: run.finishedAt?.toISOString() ?? null,
        duration_ms: run.durationMs,
        summary: { total: run.total, succeeded: run.succeeded, failed: run.total - run.succeeded },
      })),
    };
  }

  async get(tenantId: string, id: string): Promise<StageRunView> {
    const run = await this.runs.find(tenantId, id);
    if (!run) throw StageException.runNotFound(id);
    const results = run.steps as unknown as StageStepResult[];
    const succeeded = results.filter((r) => r.status === 'succeeded').length;
    const origin = (run.request as { origin?: Record<string, unknown> } | null)?.origin;
    const stored = (run.output ?? {}) as {
      output?: StageRunView['output'];
      stages?: StageOutcome[];
      warnings?: string[];
    };
    return {
      run_id: run.id,
      stage_name: run.stageName,
      status: run.status,
      ...runIds(run),
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt?.toISOString() ?? null,
      duration_ms: run.durationMs,
      summary: { total: results.length, succeeded, failed: results.length - succeeded },
      output: stored.output ?? null,
      ...(stored.stages ? { stages: stored.stages } : {}),
      warnings: stored.warnings ?? [],
      ...(origin ? { origin } : {}),
      results,
    };
  }
}

/**
 * The output mapping's values, each resolved on its own: a reference that does not resolve (its step
 * failed, a path missing) gives null and a warning instead of failing the run.
 */
function mapOutput(
  mapping: Record<string, unknown> | undefined,
  scope: ReadonlyMap<string, unknown>,
  warnings: string[],
  tag?: string,
): Record<string, unknown> | null {
  if (!mapping) return null;
  const output: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(mapping)) {
    try {
      output[name] = resolveRefs(expression, scope);
    } catch (error) {
      if (!(error instanceof StepReferenceError)) throw error;
      output[name] = null;
      warnings.push(`${tag ? `${tag}: ` : ''}output "${name}": ${error.message}`);
    }
  }
  return output;
}
