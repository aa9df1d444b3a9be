import type { ToolAssetSpec } from '@app/asset-registry';
import { ErrorKind } from '@app/platform';
import {
  type DynamicToolFactory,
  type Tool,
  type ToolContext,
  type ToolKindRegistry,
  ToolsException,
  ToolsExceptionCode,
} from '@app/tools';
import { loadSqlParser } from '../sql/sql-guard.util';
import type { SourceSqlRepository } from '../sql/source-sql.repository';
import type { SqlToolRepository } from '../sql/sql-tool.repository';
import { QueryToolFactory } from './query-tool.factory';

const query = (config: Record<string, unknown>): ToolAssetSpec =>
  ({
    name: 'slow_services',
    description: 'services slower than a threshold',
    kind: 'query',
    tool_config: { query_sql: null, query_cypher: null, query_http: null, query_metadata: {}, ...config },
    tool_input_schema: { type: 'object', properties: { ms: { type: 'number' } } },
  }) as unknown as ToolAssetSpec;

/** The http tool kind, recording what it was asked to build, or refusing it with the given issues. */
function httpKind(issues?: Array<{ path: string; message: string }>) {
  const built: Array<Record<string, unknown>> = [];
  const factory: DynamicToolFactory = {
    create: (spec) => {
      if (issues)
        throw new ToolsException(ToolsExceptionCode.TOOL_INPUT_INVALID, ErrorKind.INVALID_INPUT, 'bad', {
          issues,
        });
      built.push(spec as unknown as Record<string, unknown>);
      return {
        definition: { ...(spec as object), source: 'dynamic' },
        execute: () => Promise.resolve({ data: { via: 'http' } }),
      } as unknown as Tool;
    },
  };
  return {
    built,
    kinds: { factoryFor: (kind: string) => (kind === 'http' ? factory : undefined) } as ToolKindRegistry,
  };
}

function factoryWith(kinds: ToolKindRegistry) {
  return new QueryToolFactory({} as SqlToolRepository, {} as SourceSqlRepository, kinds);
}

function pathsOf(build: () => unknown): string[] {
  try {
    build();
  } catch (error) {
    return ((error as ToolsException).details as { issues: Array<{ path: string }> }).issues.map(
      (i) => i.path,
    );
  }
  return [];
}

describe('query assets as tools', () => {
  beforeAll(() => loadSqlParser());

  it('refuses Cypher (no graph store), and a query with neither sql nor http', () => {
    const factory = factoryWith(httpKind().kinds);
    expect(pathsOf(() => factory.create(query({ query_cypher: 'MATCH (n) RETURN n' })))).toEqual([
      '/tool_config/query_cypher',
    ]);
    expect(pathsOf(() => factory.create(query({})))).toEqual(['/tool_config']);
  });

  it("reports the sql tool's problems at the query's own fields", () => {
    const factory = factoryWith(httpKind().kinds);
    expect(
      pathsOf(() =>
        factory.create(
          query({ query_sql: 'DELETE FROM metrics', query_metadata: { row_limit: 0, timeout_ms: 5 } }),
        ),
      ),
    ).toEqual([
      '/tool_config/query_sql',
      '/tool_config/query_metadata/row_limit',
      '/tool_config/query_metadata/timeout_ms',
    ]);
  });

  it('builds query_http through the http kind, with the metadata timeout, and re-points its problems', async () => {
    const ok = httpKind();
    const tool = factoryWith(ok.kinds).create(
      query({
        query_http: { method: 'GET', url: 'https://status.example/api' },
        query_metadata: { timeout_ms: 3000 },
      }),
    );
    expect(ok.built[0]).toMatchObject({
      tool_config: { method: 'GET', url: 'https://status.example/api', timeout_ms: 3000 },
    });
    expect(await tool.execute({} as ToolContext, {})).toEqual({ data: { via: 'http' } });
    const refused = httpKind([{ path: '/tool_config/url', message: 'is not allowed' }]);
    expect(
      pathsOf(() => factoryWith(refused.kinds).create(query({ query_http: { url: 'http://10.0.0.1' } }))),
    ).toEqual(['/tool_config/query_http/url']);
  });

  it('refuses query_http when no http kind is loaded', () => {
    const none = { factoryFor: () => undefined } as unknown as ToolKindRegistry;
    expect(
      pathsOf(() => factoryWith(none).create(query({ query_http: { url: 'https://x.example' } }))),
    ).toEqual(['/tool_config/query_http']);
  });
});
