import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/platform';
import { ToolRegistry } from '../core/tool-registry';
import { ToolContext, ToolResult } from '../core/tool.types';
import { PlannedStep, planStage, resolveRefs, StageStepRequest, StepReferenceError } from './stage-plan.util';
import { StageException } from './stage.exception';
import { StageRunStatus } from './stage-run.entity';
import { StageRunRepository } from './stage-run.repository';

export interface StageRequest {
  stage_name: string;
  tools: StageStepRequest[];
  timeout_ms?: number;
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
  result: ToolResult;
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
}

/** Bounds how many steps run at once. */
class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    return () => {
      this.active--;
      this.waiting.shift()?.();
    };
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function failure(
  tool: string,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): ToolResult {
  return {
    success: false,
    data: null,
    error: message,
    error_details: { code, ...details },
    warnings: [],
    metadata: { tool, execution_time_ms: 0 },
  };
}

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
    const deadline = Date.now() + (request.timeout_ms ?? this.config.get('STAGE_TIMEOUT_MS'));
    const runId = await this.runs.start({
      tenantId: caller.tenantId,
      stageName: request.stage_name,
      userId: caller.userId,
      requestId: caller.requestId,
      traceId: caller.traceId,
      request: request as unknown as Record<string, unknown>,
      startedAt,
    });

    const semaphore = new Semaphore(this.config.get('STAGE_MAX_CONCURRENCY'));
    const outcomes = new Map<string, Promise<StageStepResult>>();
    const resultsById = new Map<string, ToolResult>();
    const runStep = async (step: PlannedStep): Promise<StageStepResult> => {
      const dependencies = await Promise.all(step.depends_on.map((id) => outcomes.get(id)!));
      const queuedAt = performance.now() - started;
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
          result,
        };
      };
      const failed = dependencies.filter((d) => d.status !== 'succeeded').map((d) => d.id);
      if (failed.length)
        return done(
          'skipped',
          failure(step.tool_name, 'DEPENDENCY_FAILED', `Skipped: ${failed.join(', ')} did not succeed.`, {
            failed_steps: failed,
          }),
          null,
        );
      let input: unknown;
      try {
        input = resolveRefs(step.input, resultsById);
      } catch (error) {
        if (!(error instanceof StepReferenceError)) throw error;
        return done('failed', failure(step.tool_name, 'REFERENCE_UNRESOLVED', error.message), null);
      }
      const release = await semaphore.acquire();
      try {
        if (signal.aborted)
          return done('cancelled', failure(step.tool_name, 'CANCELLED', 'The stage was cancelled.'), null);
        const startedAtMs = performance.now() - started;
        const context: ToolContext = {
          ...caller,
          caller: 'operator',
          deadline: step.timeout_ms ? Math.min(deadline, Date.now() + step.timeout_ms) : deadline,
          signal,
        };
        const result = await this.registry
          .execute(context, step.tool_name, input)
          .catch((error: Error) => failure(step.tool_name, 'EXECUTION_FAILED', error.message));
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
