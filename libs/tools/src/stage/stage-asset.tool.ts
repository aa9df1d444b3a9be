import type { PublishedAsset } from '@app/asset-registry';
import { ToolDefinition, Tool, ToolContext, ToolError, ToolErrorCode, ToolOutput } from '../core/tool.types';
import type { StageDefinition, StageExecutorService } from './stage-executor.service';

/** A published `stage` asset's content, as far as its tool needs it. */
interface StageAssetContent {
  params_schema?: Record<string, unknown>;
  timeout_ms?: number;
  stages?: StageDefinition[];
}

export const STAGE_TOOL_KIND = 'stage';
/** The rule tool assets' names follow (LLM function calling): a stage is a tool only under such a name. */
export const STAGE_TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The tool names a stage asset's steps call, in order, without repeats. */
export function stageStepTools(content: unknown): string[] {
  const stages = (content as StageAssetContent | null)?.stages ?? [];
  return [...new Set(stages.flatMap((stage) => (stage.tools ?? []).map((step) => step.tool_name)))];
}

/**
 * A published stage asset as a tool (Dify publishes a workflow as a tool): named by the asset, its
 * input is the stage's params_schema, it has side effects when any step's tool has, and a call runs
 * the stage through the StageExecutorService (a stored run; the tool returns the run's view).
 */
export class StageAssetTool implements Tool {
  /** Runs in progress per request, so a stage that (through other stages) calls itself is refused. */
  private static readonly active = new Set<string>();
  readonly definition: ToolDefinition;

  constructor(
    asset: PublishedAsset,
    hasSideEffects: boolean,
    defaultTimeoutMs: number,
    private readonly executor: StageExecutorService,
  ) {
    const content = (asset.snapshot.content ?? {}) as StageAssetContent;
    const steps = stageStepTools(content);
    this.definition = {
      name: asset.name,
      description:
        asset.snapshot.description ??
        `Runs the published stage ${asset.name} (steps: ${steps.join(', ')}); returns the stored run.`,
      kind: STAGE_TOOL_KIND,
      input_schema: { type: 'object', ...(content.params_schema ?? {}) },
      output_schema: null,
      has_side_effects: hasSideEffects,
      timeout_ms: content.timeout_ms ?? defaultTimeoutMs,
      source: 'dynamic',
      version: asset.version,
      source_ref: null,
      tags: [...(asset.snapshot.tags ?? []), 'stage'],
    };
  }

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const name = this.definition.name;
    const key = `${context.tenantId}:${context.requestId}:${name}`;
    if (StageAssetTool.active.has(key))
      throw new ToolError(
        ToolErrorCode.EXECUTION_FAILED,
        `The stage ${name} calls itself; it was not run again.`,
        {
          stage: name,
        },
      );
    StageAssetTool.active.add(key);
    try {
      const run = await this.executor.executePublished(
        {
          tenantId: context.tenantId,
          userId: context.userId,
          requestId: context.requestId,
          traceId: context.traceId,
          confirmed: context.confirmed,
          caller: context.caller,
          deadline: context.deadline,
        },
        name,
        input,
        context.signal,
      );
      const { results, ...view } = run;
      return {
        data: {
          ...view,
          steps: results.map((step) => ({
            id: step.id,
            tool_name: step.tool_name,
            status: step.status,
            error: step.result.error,
          })),
        },
        metadata: { run_id: run.run_id, stage_version: this.definition.version },
        ...(run.status === 'ok' ? {} : { warnings: [`The stage run ended ${run.status}.`] }),
      };
    } finally {
      StageAssetTool.active.delete(key);
    }
  }
}
