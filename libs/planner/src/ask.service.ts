import { Injectable } from '@nestjs/common';
import { ToolRegistry } from '@app/tools';
import { OPS_DATA_TOOLS, OpsDataPresence } from '@app/ops';
import { AnswerWriter } from './answer/answer-writer';
import { PlanExecutor } from './execution/plan-executor';
import type { PlanExecutionResult, PlanOutcome } from './plan/plan.types';
import { PlannerOptions } from './planner-options';
import { KNOWLEDGE_INCOMPLETE_PREFIX, PlannerService } from './planner.service';

export interface AskRequest {
  tenantId: string;
  userId: string;
  requestId: string;
  traceId: string;
  query: string;
  model?: string;
  useLlm?: boolean;
  now?: Date;
}

export interface AskResult {
  /** `no_data`: the steps ran, but this tenant has no OPS data loaded, so they could find nothing. */
  status: 'answered' | 'no_data' | 'partial' | 'failed' | 'plan_rejected';
  query: string;
  answer: string;
  answer_source: 'llm' | 'template';
  model: string | null;
  planning: PlanOutcome;
  execution: PlanExecutionResult | null;
  warnings: string[];
  asset_versions: PlanOutcome['asset_versions'];
  timings: { planning_ms: number; llm_ms: number; execution_ms: number; answer_ms: number; total_ms: number };
}

export const NO_OPS_DATA_WARNING =
  'no_ops_data: this tenant has no configuration items, metrics or history loaded';

/** Said before an answer whose OPS steps found nothing because nothing was ever loaded. */
function noOpsDataHint(language: 'ko' | 'en' | undefined): string {
  return language === 'ko'
    ? '이 테넌트에는 아직 OPS 데이터(구성 항목, 메트릭, 이력)가 없습니다. 데모 데이터를 불러오려면 `POST /ops/demo/load` (관리자 키) 또는 서버를 멈춘 상태에서 `npm run seed:demo` 를 실행하세요.'
    : 'This tenant has no OPS data loaded yet (configuration items, metrics, history). Load the demo dataset with `POST /ops/demo/load` (admin key), or `npm run seed:demo` while the server is stopped.';
}

/** Said in the answer when the plan was made without the tenant's catalog or keyword mappings. */
function knowledgeHint(language: 'ko' | 'en' | undefined): string {
  return language === 'ko'
    ? '참고: 이 테넌트의 계획용 지식(카탈로그, 키워드 매핑)이 아직 게시되지 않아 도구 설명만으로 계획했습니다. 결과가 부정확할 수 있습니다.'
    : "Note: this tenant's planning knowledge (catalog, keyword mappings) is not published yet, so the plan was made from the tool descriptions only and may be less accurate.";
}

/** Plan, validate, execute and answer. An invalid plan is never executed. */
@Injectable()
export class AskService {
  constructor(
    private readonly planner: PlannerService,
    private readonly executor: PlanExecutor,
    private readonly answers: AnswerWriter,
    private readonly tools: ToolRegistry,
    private readonly options: PlannerOptions,
    private readonly opsData: OpsDataPresence,
  ) {}

  async ask(request: AskRequest): Promise<AskResult> {
    const started = performance.now();
    const controller = new AbortController();
    const deadline = Date.now() + this.options.executionTimeoutMs;
    const planning = await this.planner.plan({ ...request, signal: controller.signal });
    const warnings = [...planning.warnings];
    const toolNames = this.tools.list(request.tenantId).map((t) => t.name);

    if (!planning.valid || !planning.plan) {
      const reasons = planning.errors
        .map((e) => `${e.step_id ? `${e.step_id}: ` : ''}${e.message}`)
        .join('\n');
      return {
        status: 'plan_rejected',
        query: request.query,
        answer: `The plan was rejected and nothing was run:\n${reasons}`,
        answer_source: 'template',
        model: planning.model,
        planning,
        execution: null,
        warnings,
        asset_versions: planning.asset_versions,
        timings: {
          ...planning.timings,
          execution_ms: 0,
          answer_ms: 0,
          total_ms: Math.round(performance.now() - started),
        },
      };
    }

    let execution: PlanExecutionResult | null = null;
    if (planning.plan.steps.length) {
      execution = await this.executor.execute(
        {
          tenantId: request.tenantId,
          userId: request.userId,
          requestId: request.requestId,
          traceId: request.traceId,
          deadline,
          signal: controller.signal,
          caller: 'plan',
        },
        planning.plan.steps,
        deadline,
        { stageName: 'ops.ask', question: request.query },
      );
      for (const step of execution.steps)
        warnings.push(...step.result.warnings.map((w) => `${step.step_id}: ${w}`));
    }
    const written = await this.answers.write({
      query: request.query,
      plan: planning.plan,
      execution,
      toolNames,
      model: request.model,
      useLlm: request.useLlm,
    });
    if (written.warning) warnings.push(written.warning);
    const noData = await this.noOpsData(request.tenantId, execution);
    if (noData) warnings.push(NO_OPS_DATA_WARNING);
    const status = noData
      ? 'no_data'
      : !execution || execution.status === 'succeeded'
        ? 'answered'
        : execution.status === 'partial'
          ? 'partial'
          : 'failed';
    return {
      status,
      query: request.query,
      answer: [
        planning.warnings.some((w) => w.startsWith(KNOWLEDGE_INCOMPLETE_PREFIX))
          ? knowledgeHint(planning.plan.language)
          : null,
        noData ? noOpsDataHint(planning.plan.language) : null,
        written.answer,
      ]
        .filter(Boolean)
        .join('\n\n'),
      answer_source: written.source,
      model: written.model ?? planning.model,
      planning,
      execution,
      warnings,
      asset_versions: planning.asset_versions,
      timings: {
        ...planning.timings,
        llm_ms: planning.timings.llm_ms + written.latency_ms,
        execution_ms: execution?.duration_ms ?? 0,
        answer_ms: written.latency_ms,
        total_ms: Math.round(performance.now() - started),
      },
    };
  }

  /** True when the plan read the OPS data model, found nothing, and the tenant has no items at all. */
  private async noOpsData(tenantId: string, execution: PlanExecutionResult | null): Promise<boolean> {
    const opsSteps = execution?.steps.filter((s) => OPS_DATA_TOOLS.has(s.tool_type)) ?? [];
    if (!opsSteps.length || opsSteps.some((s) => s.result.success && hasRows(s.result.data))) return false;
    return !(await this.opsData.hasData(tenantId));
  }
}

function hasRows(data: unknown): boolean {
  if (!data || typeof data !== 'object') return false;
  return Object.values(data).some((value) => Array.isArray(value) && value.length > 0);
}
