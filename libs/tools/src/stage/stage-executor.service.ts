import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/platform';
import { BoundedSemaphore } from '../core/bounded-semaphore';
import { ToolRegistry } from '../core/tool-registry';
import { failedToolResult } from '../core/tool-result';
import { ToolCaller, ToolContext, ToolResult } from '../core/tool.types';
import { PlannedStep, planStage, resolveRefs, StageStepRequest, StepReferenceError } from './stage-plan.util';
import { StageException } from './stage.exception';
import { StageRunStatus } from './stage-run.entity';
import { StageRunRepository } from './stage-run.repository';

export interface StageRequest {
  stage_name: string;
  tools: StageStepRequest[];
  timeout_ms?: number;
  /** The question a plan answers (plans run by /ops/ask and the agent), kept with the stored run. */
  question?: string;
}

export type StepStatus = 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface StageStepResult {
  id: string;
  tool_name: string;
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
export interface StageRunSummary {
  run_id: string;
  stage_name: string;
  status: StageRunStatus;
  user_id: string;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  summary: { total: number; succeeded: number; failed: number };
}

export interface StageRunView {
  run_id: string;
  stage_name: string;
  /** `running` while the stage runs (a stored run read back early); then ok, partial or failed. */
  status: StageRunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  summary: { total: number; succeeded: number; failed: number };
  results: StageStepResult[];
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
  /** An outer deadline (epoch ms) the stage may not run past, e.g. the /ops/ask request's. */
  deadline?: number;
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
  constructor(
    private readonly registry: ToolRegistry,
    private readonly runs: StageRunRepository,
    private readonly config: AppConfig,
  ) {}

  async execute(caller: StageCaller, request: StageRequest, signal: AbortSignal): Promise<StageRunView> {
    const steps = planStage(request.tools, (name) => this.registry.has(caller.tenantId, name));
    const startedAt = new Date();
    const started = performance.now();
    const ownDeadline = Date.now() + (request.timeout_ms ?? this.config.get('STAGE_TIMEOUT_MS'));
    const deadline = caller.deadline ? Math.min(caller.deadline, ownDeadline) : ownDeadline;
    const runId = await this.runs.start({
      tenantId: caller.tenantId,
      stageName: request.stage_name,
      userId: caller.userId,
      requestId: caller.requestId,
      traceId: caller.traceId,
      request: { ...request },
      startedAt,
    });

    const semaphore = new BoundedSemaphore(this.config.get('STAGE_MAX_CONCURRENCY'));
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
          tool_name: step.tool_name,
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
        input = resolveRefs(step.input, resultsById) as Record<string, unknown>;
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
        return done(result.success ? 'succeeded' : cancelled ? 'cancelled' : 'failed', result, startedAtMs);
      } finally {
        release();
      }
    };
    for (const step of steps) outcomes.set(step.id, runStep(step));
    const results = await Promise.all(steps.map((s) => outcomes.get(s.id)!));

    const succeeded = results.filter((r) => r.status === 'succeeded').length;
    const status: StageRunStatus =
      succeeded === results.length ? 'ok' : succeeded === 0 ? 'failed' : 'partial';
    const finishedAt = new Date();
    const durationMs = round(performance.now() - started);
    await this.runs.finish(runId, status, results, finishedAt, durationMs);
    return {
      run_id: runId,
      stage_name: request.stage_name,
      status,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_ms: durationMs,
      summary: { total: results.length, succeeded, failed: results.length - succeeded },
      results,
    };
  }

  /** The tenant's stored runs, newest first: stages run over HTTP, and plans run by /ops/ask and the agent. */
  async list(
    tenantId: string,
    query: { stageName?: string; status?: StageRunStatus; limit: number; offset: number },
  ): Promise<{ runs: StageRunSummary[]; total: number }> {
    const { rows, total } = await this.runs.list(tenantId, query);
    return {
      total,
      runs: rows.map((run) => ({
        run_id: run.id,
        stage_name: run.stageName,
        status: run.status,
        user_id: run.userId,
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
    return {
      run_id: run.id,
      stage_name: run.stageName,
      status: run.status,
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt?.toISOString() ?? null,
      duration_ms: run.durationMs,
      summary: { total: results.length, succeeded, failed: results.length - succeeded },
      results,
    };
  }
}
