import { Injectable } from '@nestjs/common';
import type { QueryToolConfig, SqlToolConfig, ToolAssetSpec, ToolConfigIssue } from '@app/asset-registry';
import { AppException, ErrorKind } from '@app/platform';
import {
  DynamicToolFactory,
  DynamicToolMeta,
  Tool,
  ToolContext,
  ToolKindRegistry,
  ToolOutput,
  ToolsException,
  ToolsExceptionCode,
} from '@app/tools';
import { createSqlTool } from '../sql/sql-tool.factory';
import { SourceSqlRepository } from '../sql/source-sql.repository';
import { SqlToolRepository } from '../sql/sql-tool.repository';

function invalid(name: string, issues: ToolConfigIssue[]): ToolsException {
  return new ToolsException(
    ToolsExceptionCode.TOOL_INPUT_INVALID,
    ErrorKind.INVALID_INPUT,
    `Query "${name}" cannot run: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    { issues },
  );
}

/** Re-points the issues of the sql or http tool a query is built as at the query's own fields. */
function rethrowWithQueryPaths(error: unknown, name: string, rename: (path: string) => string): never {
  if (!(error instanceof AppException)) throw error;
  const issues = (error.details as { issues?: ToolConfigIssue[] } | undefined)?.issues;
  if (!issues?.length) throw error;
  throw invalid(
    name,
    issues.map((i) => ({ ...i, path: rename(i.path) })),
  );
}

const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The sql or http tool a query asset runs as, under the query's name and kind. */
class QueryTool implements Tool {
  readonly definition: Tool['definition'];

  constructor(private readonly inner: Tool) {
    this.definition = { ...inner.definition, kind: 'query' };
  }

  execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    return this.inner.execute(context, input);
  }
}

/**
 * The `query` tool kind (the query registry): a published query asset runs as a tool. `query_sql` goes
 * through the sql sandbox (one checked read-only SELECT, tenant-bound, cost- and time-limited),
 * `query_http` through the http kind (the egress-checked client, secrets resolved at call time). There
 * is no graph store, so `query_cypher` is refused.
 */
@Injectable()
export class QueryToolFactory implements DynamicToolFactory {
  constructor(
    private readonly repository: SqlToolRepository,
    private readonly sources: SourceSqlRepository,
    private readonly kinds: ToolKindRegistry,
  ) {}

  create(spec: ToolAssetSpec, meta: DynamicToolMeta = {}): Tool {
    if (spec.kind !== 'query') throw invalid(spec.name, [{ path: '/tool_type', message: 'must be query' }]);
    const config = spec.tool_config as QueryToolConfig;
    const metadata = config.query_metadata ?? {};
    if (config.query_cypher) {
      throw invalid(spec.name, [
        {
          path: '/tool_config/query_cypher',
          message: 'cannot run: this deployment has no graph store to run Cypher against',
        },
      ]);
    }
    if (config.query_sql) {
      const sql: SqlToolConfig = {
        query: config.query_sql,
        ...(number(metadata.row_limit) !== undefined ? { row_limit: number(metadata.row_limit) } : {}),
        ...(number(metadata.timeout_ms) !== undefined ? { timeout_ms: number(metadata.timeout_ms) } : {}),
      };
      try {
        return new QueryTool(
          createSqlTool(
            { ...spec, kind: 'sql', tool_config: sql },
            { repository: this.repository, sources: this.sources },
            meta,
          ),
        );
      } catch (error) {
        rethrowWithQueryPaths(error, spec.name, (path) =>
          path
            .replace(/^\/tool_config\/query\b/, '/tool_config/query_sql')
            .replace(/^\/tool_config\/(row_limit|timeout_ms)/, '/tool_config/query_metadata/$1'),
        );
      }
    }
    if (config.query_http) {
      const http = this.kinds.factoryFor('http');
      if (!http)
        throw invalid(spec.name, [
          { path: '/tool_config/query_http', message: 'no http tool kind is loaded' },
        ]);
      const request = {
        ...config.query_http,
        ...(number(metadata.timeout_ms) !== undefined ? { timeout_ms: number(metadata.timeout_ms) } : {}),
      };
      try {
        return new QueryTool(http.create({ ...spec, kind: 'http', tool_config: request }, meta));
      } catch (error) {
        rethrowWithQueryPaths(error, spec.name, (path) =>
          path.replace(/^\/tool_config\b/, '/tool_config/query_http'),
        );
      }
    }
    throw invalid(spec.name, [
      { path: '/tool_config', message: 'a runnable query needs query_sql or query_http' },
    ]);
  }
}
