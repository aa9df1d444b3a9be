import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  AssetRegistryException,
  AssetRegistryExceptionCode,
  INTERNAL_SOURCE_REF,
  type SqlToolConfig,
  type ToolAssetSpec,
} from '@app/asset-registry';
import { ErrorKind } from '@app/platform';
import {
  SchemaValidator,
  ToolsException,
  ToolsExceptionCode,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolError,
  ToolErrorCode,
  ToolOutput,
} from '@app/tools';
import { checkSqlQuery, CheckedSql, loadSqlParser, SOURCE_RELATIONS, SqlGuardError } from './sql-guard.util';
import { withRowCounter } from './sql-row-counter.util';
import { SourceSqlRepository } from './source-sql.repository';
import {
  SqlCostExceededError,
  SqlRowCapExceededError,
  SqlRows,
  SqlToolBudgetSpentError,
  SqlToolBusyError,
  SqlToolRepository,
  SqlToolSuspendedError,
} from './sql-tool.repository';

export const SQL_TOOL_DEFAULTS = {
  rowLimit: 1000,
  maxRowLimit: 10_000,
  timeoutMs: 10_000,
  maxTimeoutMs: 60_000,
};

const SQL_ERROR_CODES: Record<string, string> = {
  '57014': 'query cancelled by the statement timeout',
  '25006': 'the query tried to write in a read-only transaction',
  '42P01': 'unknown table (only configuration_items, metrics, history_events and ci_relations exist)',
  '42883': 'unknown function or operator',
  '42703': 'unknown column',
};

/** On a source database the server's own text names the table, column or grant; these add the why. */
const SOURCE_SQL_HINTS: Record<string, string> = {
  '57014': 'query cancelled by the statement timeout',
  '25006': 'the query tried to write in a read-only transaction',
  '42501': "the source's database role may not read this",
};

/** Refusals of the source pools, as tool errors with the same codes. */
function sourceToolError(error: AssetRegistryException): ToolError {
  const details = (error.details ?? {}) as Record<string, unknown>;
  if (error.code === (AssetRegistryExceptionCode.SOURCE_BUSY as string))
    return new ToolError(ToolErrorCode.RATE_LIMITED, error.message, { ...details, code: error.code });
  return new ToolError(error.code, error.message, details);
}

type SqlRunner = (
  tenantId: string,
  checkedText: string,
  values: unknown[],
  rowLimit: number,
  timeoutMs: number,
) => Promise<SqlRows>;

function invalid(message: string, details: unknown): ToolsException {
  return new ToolsException(ToolsExceptionCode.TOOL_INPUT_INVALID, ErrorKind.INVALID_INPUT, message, details);
}

/**
 * A tool running one checked, parameterised, read-only SELECT: over the caller's tenant's OPS data, or
 * over the tenant's registered source database its `source_ref` names.
 */
class SqlTool implements Tool {
  constructor(
    readonly definition: ToolDefinition,
    private readonly checked: CheckedSql,
    private readonly rowLimit: number,
    private readonly run: SqlRunner,
    private readonly onSource: boolean,
  ) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const values = this.checked.parameters.map((name) => {
      const value = input[name];
      if (value === undefined)
        throw new ToolError(ToolErrorCode.INVALID_INPUT, `Missing value for :${name}.`, { parameter: name });
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? JSON.stringify(value)
        : value;
    });
    const timeoutMs = Math.max(1, Math.min(this.definition.timeout_ms, context.deadline - Date.now()));
    try {
      const result = await this.run(context.tenantId, this.checked.text, values, this.rowLimit, timeoutMs);
      return {
        data: {
          columns: result.columns,
          rows: result.rows,
          row_count: result.rows.length,
          truncated: result.truncated,
        },
        warnings: result.truncated ? [`Only the first ${this.rowLimit} rows are returned.`] : [],
      };
    } catch (error) {
      if (error instanceof AssetRegistryException) throw sourceToolError(error);
      if (error instanceof SqlToolSuspendedError)
        throw new ToolError(ToolErrorCode.RATE_LIMITED, `SQL tool paused: ${error.message}`, {
          retry_after_seconds: error.retryAfterSeconds,
          interrupts_last_hour: error.interrupts,
        });
      if (error instanceof SqlToolBudgetSpentError)
        throw new ToolError(ToolErrorCode.RATE_LIMITED, `SQL tool paused: ${error.message}`, {
          retry_after_seconds: error.retryAfterSeconds,
          seconds_per_hour: error.secondsPerHour,
        });
      if (error instanceof SqlToolBusyError)
        throw new ToolError(ToolErrorCode.RATE_LIMITED, `SQL tool busy: ${error.message}`, {
          retry_after_seconds: error.retryAfterSeconds,
          max_concurrent_per_tenant: error.maxConcurrent,
        });
      if (error instanceof SqlRowCapExceededError)
        throw new ToolError('QUERY_TOO_EXPENSIVE', `SQL error: ${error.message}`, {
          max_rows_examined: error.maxRows,
        });
      if (error instanceof SqlCostExceededError)
        throw new ToolError('QUERY_TOO_EXPENSIVE', `SQL error: ${error.message}`, {
          estimated_cost: Math.round(error.cost),
        });
      const code = (error as { code?: string }).code;
      if (code && code.length === 5 && this.onSource) {
        const hint = SOURCE_SQL_HINTS[code];
        throw new ToolError(
          code === '57014' ? ToolErrorCode.TIMEOUT : ToolErrorCode.EXECUTION_FAILED,
          `SQL error on source "${this.definition.source_ref}": ${hint ? `${hint} (${(error as Error).message})` : (error as Error).message}`,
          { sqlstate: code, source: this.definition.source_ref },
        );
      }
      if (code && code.length === 5) {
        throw new ToolError(
          code === '57014' ? ToolErrorCode.TIMEOUT : ToolErrorCode.EXECUTION_FAILED,
          `SQL error: ${SQL_ERROR_CODES[code] ?? (error as Error).message}`,
          { sqlstate: code },
        );
      }
      throw error;
    }
  }
}

export interface SqlToolDeps {
  repository: SqlToolRepository;
  /** Runs queries of tools whose source_ref names a published source; absent: such tools are refused. */
  sources?: SourceSqlRepository;
}

/**
 * Builds `sql` tools from tool asset specs. Refuses (400-kind ToolsException) a query that is not one
 * read-only SELECT, a placeholder the input schema does not declare, or limits out of range. A
 * `source_ref` other than `internal` runs the query on that source (the same guard; tables of the
 * source's schema instead of the OPS relations).
 */
export function createSqlTool(
  spec: ToolAssetSpec,
  deps: SqlToolDeps,
  options: { version?: number | null } = {},
): Tool {
  if (spec.kind !== 'sql') throw invalid(`Tool "${spec.name}" is not an sql tool.`, { tool_type: spec.kind });
  const config = spec.tool_config as SqlToolConfig;
  const source = spec.source_ref && spec.source_ref !== INTERNAL_SOURCE_REF ? spec.source_ref : null;
  const issues: Array<{ path: string; message: string }> = [];
  if (source && !deps.sources)
    issues.push({ path: '/source_ref', message: 'this process cannot reach source databases' });
  let checked: CheckedSql = { text: '', parameters: [] };
  if (typeof config?.query !== 'string')
    issues.push({ path: '/tool_config/query', message: 'query is required' });
  else {
    try {
      // Internal: $1 is the tenant, and the row counter stands in for the embedded database's missing
      // statement_timeout. A source is a real server, which enforces its statement timeout itself.
      checked = source ? checkSqlQuery(config.query, 1, SOURCE_RELATIONS) : checkSqlQuery(config.query, 2);
      if (!source) checked = { ...checked, text: withRowCounter(checked.text) };
    } catch (error) {
      if (!(error instanceof SqlGuardError)) throw error;
      issues.push(
        ...error.issues.map((i) => ({
          path: '/tool_config/query',
          message: `${i.message} (at ${i.position})`,
        })),
      );
    }
  }
  const properties = (spec.tool_input_schema?.properties ?? {}) as Record<string, unknown>;
  for (const name of checked.parameters) {
    if (!(name in properties))
      issues.push({
        path: '/tool_input_schema/properties',
        message: `placeholder :${name} is not an input property`,
      });
  }
  issues.push(
    ...new SchemaValidator()
      .schemaIssues(spec.tool_input_schema)
      .map((i) => ({ ...i, path: `/tool_input_schema${i.path}` })),
  );
  const rowLimit = config?.row_limit ?? SQL_TOOL_DEFAULTS.rowLimit;
  if (!Number.isInteger(rowLimit) || rowLimit < 1 || rowLimit > SQL_TOOL_DEFAULTS.maxRowLimit)
    issues.push({
      path: '/tool_config/row_limit',
      message: `must be an integer from 1 to ${SQL_TOOL_DEFAULTS.maxRowLimit}`,
    });
  const timeoutMs = config?.timeout_ms ?? spec.timeout_ms ?? SQL_TOOL_DEFAULTS.timeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > SQL_TOOL_DEFAULTS.maxTimeoutMs)
    issues.push({
      path: '/tool_config/timeout_ms',
      message: `must be an integer from 100 to ${SQL_TOOL_DEFAULTS.maxTimeoutMs}`,
    });
  if (issues.length) throw invalid(`SQL tool "${spec.name}" is not valid.`, { issues });

  const definition: ToolDefinition = {
    name: spec.name,
    description: spec.description,
    kind: 'sql',
    input_schema: spec.tool_input_schema,
    output_schema: spec.tool_output_schema ?? {
      type: 'object',
      properties: {
        columns: { type: 'array' },
        rows: { type: 'array', items: { type: 'object' } },
        row_count: { type: 'integer' },
        truncated: { type: 'boolean' },
      },
      required: ['rows', 'row_count', 'truncated'],
    },
    has_side_effects: false,
    timeout_ms: timeoutMs,
    source: 'dynamic',
    source_ref: source ?? INTERNAL_SOURCE_REF,
    version: options.version ?? null,
  };
  const sources = deps.sources;
  const run: SqlRunner =
    source && sources
      ? (tenantId, text, values, limit, timeout) =>
          sources.run(tenantId, source, text, values, limit, timeout)
      : (tenantId, text, values, limit, timeout) =>
          deps.repository.run(tenantId, text, values, limit, timeout);
  return new SqlTool(definition, checked, rowLimit, run, source !== null);
}

/** Injectable form of createSqlTool, for the code that turns published tool assets into tools. */
@Injectable()
export class SqlToolFactory implements OnModuleInit {
  constructor(
    private readonly repository: SqlToolRepository,
    private readonly sources: SourceSqlRepository,
  ) {}

  onModuleInit(): Promise<void> {
    return loadSqlParser();
  }

  create(spec: ToolAssetSpec, options: { version?: number | null } = {}): Tool {
    return createSqlTool(spec, { repository: this.repository, sources: this.sources }, options);
  }
}
