import { Injectable, Logger } from '@nestjs/common';
import type { ToolDryRunOutcome } from '../asset-contents';
import {
  SPEC_FIELDS,
  type AssetSnapshot,
  type AssetSpec,
  type ContractIssue,
  type ToolContractReport,
} from '../asset.types';
import { AssetRegistryException, AssetRegistryExceptionCode } from '../asset-registry.exception';
import { TOOL_NAME_PATTERN, type ToolAssetSpec } from '../asset-contents';
import { toQueryToolSpec, toToolSpec } from '../reading/asset-content.mapper';
import { AssetSpecValidator, toFieldPath } from '../validation/asset-spec.validator';
import { toolBreakingChanges } from './tool-breaking-changes.util';
import { ToolDryRunnerPort } from './tool-dry-runner.port';

const DEFAULT_DRY_RUN_TIMEOUT_MS = 30_000;

const objectOrNull = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Placeholders and SQL parameters that name input fields the input schema does not declare. */
function undeclaredInputs(snapshot: AssetSnapshot): string[] {
  const declared = new Set(
    Object.keys(objectOrNull(objectOrNull(snapshot.tool_input_schema)?.properties) ?? {}),
  );
  const config = objectOrNull(snapshot.tool_config) ?? {};
  const used = new Set<string>();
  for (const match of JSON.stringify(config).matchAll(/\{\{\s*input\.([A-Za-z0-9_]+)/g)) used.add(match[1]);
  if (snapshot.tool_type === 'sql' && typeof config.query === 'string') {
    const withoutStrings = config.query.replace(/'(?:[^']|'')*'/g, "''");
    for (const match of withoutStrings.matchAll(/(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)/g)) used.add(match[1]);
  }
  return [...used].filter((name) => !declared.has(name));
}

const toRunnableSpec = (snapshot: AssetSnapshot): ToolAssetSpec =>
  snapshot.asset_type === 'query' ? toQueryToolSpec(snapshot) : toToolSpec(snapshot);

/** A path into the query tool's spec, named by the query asset field it came from. */
function queryFieldOf(path: string): string {
  const field = toFieldPath(path);
  return field
    .replace(/^tool_input_schema/, 'query_params')
    .replace(/^tool_output_schema/, 'query_metadata.output_schema')
    .replace(/^tool_config\./, '');
}

/** What a query asset needs to run as a tool, beyond its schema. */
function queryIssues(snapshot: AssetSnapshot): ContractIssue[] {
  const issues: ContractIssue[] = [];
  if (!TOOL_NAME_PATTERN.test(snapshot.name) || snapshot.name.includes('__')) {
    issues.push({
      field: 'name',
      message:
        'must be a tool name to run (1-64 letters, digits, _ or -, starting with a letter, without "__"): a published query becomes a tool of that name',
    });
  }
  if (typeof snapshot.query_cypher === 'string') {
    issues.push({
      field: 'query_cypher',
      message:
        'cannot run: this deployment has no graph store to run Cypher against; express the query as query_sql (over the OPS tables, ci_relations for the graph) or query_http',
    });
  }
  if (typeof snapshot.query_sql === 'string' && objectOrNull(snapshot.query_http)) {
    issues.push({ field: 'query_http', message: 'set one of query_sql or query_http, not both' });
  }
  const params = snapshot.query_params;
  if (params !== undefined && params !== null && objectOrNull(params)?.type !== 'object') {
    issues.push({
      field: 'query_params',
      message: 'must be the JSON Schema of the query input: {"type": "object", "properties": {...}}',
    });
  }
  return issues;
}

/**
 * The publish-time contract check of tool assets: the schemas and config are valid, the change does
 * not break callers of the previous version (unless forced), and the sample input runs.
 */
@Injectable()
export class ToolContractChecker {
  private readonly logger = new Logger(ToolContractChecker.name);

  constructor(
    private readonly validator: AssetSpecValidator,
    private readonly dryRunners: ToolDryRunnerPort,
  ) {}

  /**
   * Throws when the tool (a tool asset, or a query asset, which runs as a `query` tool) cannot be
   * published; returns the report to store with the version.
   */
  check(
    snapshot: AssetSnapshot,
    previous: { version: number; snapshot: AssetSnapshot } | null,
    force: boolean,
  ): ToolContractReport {
    const type = snapshot.asset_type === 'query' ? 'query' : 'tool';
    const spec: AssetSpec = {};
    for (const field of SPEC_FIELDS) if (snapshot[field] !== undefined) spec[field] = snapshot[field];
    const issues = this.validator.specIssues(type, spec);
    if (type === 'query' && issues.length === 0) issues.push(...queryIssues(snapshot));
    const toolSpec = toRunnableSpec(snapshot);
    const inputSchema = objectOrNull(toolSpec.tool_input_schema);
    const sample = objectOrNull(toolSpec.sample_input);
    if (issues.length === 0) issues.push(...this.buildIssues(toolSpec, type));
    if (issues.length === 0 && inputSchema && sample) {
      issues.push(
        ...this.validator.dataIssues(
          inputSchema,
          sample,
          type === 'query' ? 'query_metadata.sample_input' : 'sample_input',
        ),
      );
    }
    const previousSpec =
      previous && previous.snapshot.asset_type === snapshot.asset_type
        ? toRunnableSpec(previous.snapshot)
        : null;
    const breaking = previousSpec
      ? toolBreakingChanges(
          { input: previousSpec.tool_input_schema, output: previousSpec.tool_output_schema },
          { input: toolSpec.tool_input_schema, output: toolSpec.tool_output_schema },
        )
      : [];
    const report: ToolContractReport = {
      compared_with_version: previous?.version ?? null,
      issues,
      breaking_changes: breaking,
      warnings:
        type === 'tool'
          ? undeclaredInputs(snapshot).map(
              (name) => `tool_config uses input "${name}", which tool_input_schema does not declare`,
            )
          : [],
      forced: force && breaking.length > 0,
    };
    if (issues.length > 0) {
      throw new AssetRegistryException(
        AssetRegistryExceptionCode.ASSET_CONTRACT_INVALID,
        `${type === 'query' ? 'Query' : 'Tool'} contract check failed: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`,
        report,
      );
    }
    if (breaking.length > 0 && !force) {
      throw new AssetRegistryException(
        AssetRegistryExceptionCode.ASSET_BREAKING_CHANGE,
        `Publishing would break callers of version ${previous!.version}: ` +
          `${breaking.map((b) => `${b.path} (${b.kind})`).join(', ')}. Publish with force to accept.`,
        report,
      );
    }
    return report;
  }

  /** What keeps the tools library from building the tool (the loader would leave it out after publish). */
  private buildIssues(spec: ToolAssetSpec, type: 'tool' | 'query'): ContractIssue[] {
    const runner = this.dryRunners.runner;
    if (!runner) return [];
    return runner.configIssues(spec).map((issue) => ({
      field: (type === 'query' ? queryFieldOf(issue.path) : toFieldPath(issue.path)) || '(root)',
      message: issue.message,
    }));
  }

  /** Runs the sample input once when there is one and a runner; the outcome is recorded, not enforced. */
  async dryRun(tenantId: string, snapshot: AssetSnapshot): Promise<ToolDryRunOutcome> {
    const spec = toRunnableSpec(snapshot);
    const sample = objectOrNull(spec.sample_input);
    if (!sample)
      return {
        status: 'skipped',
        error: snapshot.asset_type === 'query' ? 'no query_metadata.sample_input' : 'no sample_input',
      };
    const runner = this.dryRunners.runner;
    if (!runner) return { status: 'skipped', error: 'no tool dry runner is available' };
    const timeoutMs = (spec.timeout_ms ?? DEFAULT_DRY_RUN_TIMEOUT_MS) + 1_000;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`dry run timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      const outcome = await Promise.race([runner.dryRun(tenantId, spec, sample), timeout]);
      return {
        ...outcome,
        execution_time_ms: outcome.execution_time_ms ?? Math.round(performance.now() - started),
      };
    } catch (error) {
      this.logger.warn({ msg: 'tool dry run failed', tool: snapshot.name, error: (error as Error).message });
      return {
        status: 'failed',
        error: (error as Error).message,
        execution_time_ms: Math.round(performance.now() - started),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
