import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ToolAssetDryRunner, ToolAssetSpec, ToolConfigIssue, ToolDryRunOutcome } from '@app/asset-registry';
import { AppException } from '@app/platform';
import { SchemaValidator } from '../core/schema-validator';
import { Tool, ToolError } from '../core/tool.types';
import { ToolKindRegistry } from './tool-kind.registry';
import { DynamicToolFactory } from './dynamic-tool.factory';

/** A dry run never waits longer than this, whatever the tool's own timeout. */
export const DRY_RUN_DEADLINE_MS = 5000;

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * Runs a tool asset's sample input once at publish time: builds the tool with the factory its kind
 * registered, validates the sample against the input schema, runs it under a short deadline and checks the
 * output schema. A tool with side effects is not run (publishing must not post a blog article).
 */
@Injectable()
export class ToolAssetDryRunService extends ToolAssetDryRunner {
  private readonly logger = new Logger(ToolAssetDryRunService.name);
  private readonly validator = new SchemaValidator();

  constructor(private readonly kinds: ToolKindRegistry) {
    super();
  }

  /**
   * Builds the tool the way the loader will after publish, so a spec the loader would leave out is
   * refused at publish with the factory's reasons instead of silently missing afterwards.
   */
  override configIssues(spec: ToolAssetSpec): ToolConfigIssue[] {
    const factory = this.factoryFor(spec);
    if (!factory) return [];
    try {
      factory.create(spec);
      return [];
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      const issues = (error.details as { issues?: ToolConfigIssue[] } | undefined)?.issues;
      return issues?.length ? issues : [{ path: '/tool_config', message: error.message }];
    }
  }

  async dryRun(
    tenantId: string,
    spec: ToolAssetSpec,
    sampleInput: Record<string, unknown>,
  ): Promise<ToolDryRunOutcome> {
    const started = performance.now();
    const factory = this.factoryFor(spec);
    if (!factory) {
      return {
        status: 'skipped',
        error: `No ${spec.kind} tool factory is registered.`,
        execution_time_ms: 0,
      };
    }
    let tool: Tool;
    try {
      tool = factory.create(spec);
    } catch (error) {
      return { status: 'failed', error: (error as Error).message, execution_time_ms: elapsed(started) };
    }
    if (tool.definition.has_side_effects) {
      return {
        status: 'skipped',
        error: 'The tool has side effects, so it is not run on publish.',
        execution_time_ms: 0,
      };
    }
    const input = structuredClone(sampleInput ?? {});
    const inputIssues = this.validator.compile(tool.definition.input_schema).check(input);
    if (inputIssues.length) {
      return {
        status: 'failed',
        error: `sample_input does not match the input schema: ${inputIssues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
        execution_time_ms: elapsed(started),
      };
    }
    const budget = Math.min(DRY_RUN_DEADLINE_MS, tool.definition.timeout_ms);
    const signal = AbortSignal.timeout(budget);
    try {
      const output = await tool.execute(
        {
          tenantId,
          userId: 'dry-run',
          requestId: randomUUID(),
          traceId: randomUUID(),
          deadline: Date.now() + budget,
          signal,
        },
        input,
      );
      const outputIssues = tool.definition.output_schema
        ? this.validator.compile(tool.definition.output_schema).check(output.data)
        : [];
      if (outputIssues.length) {
        return {
          status: 'failed',
          output: output.data,
          error: `output does not match the output schema: ${outputIssues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
          execution_time_ms: elapsed(started),
        };
      }
      return { status: 'passed', output: output.data, error: null, execution_time_ms: elapsed(started) };
    } catch (error) {
      const message =
        signal.aborted && !(error instanceof ToolError)
          ? `The dry run did not finish within ${budget} ms.`
          : (error as Error).message;
      this.logger.debug({ msg: 'tool dry run failed', tool: spec.name, tenantId, error: message });
      return { status: 'failed', error: message, execution_time_ms: elapsed(started) };
    }
  }

  private factoryFor(spec: ToolAssetSpec): DynamicToolFactory | undefined {
    return this.kinds.factoryFor(spec.kind);
  }
}
