import type { ToolAssetSpec } from '@app/asset-registry';
import type { ToolContext } from '@app/tools';
import { createSqlTool, SQL_TOOL_DEFAULTS } from './sql-tool.factory';
import { loadSqlParser } from './sql-guard.util';
import {
  SqlCostExceededError,
  SqlRowCapExceededError,
  SqlToolBusyError,
  type SqlToolRepository,
  SqlToolSuspendedError,
} from './sql-tool.repository';
import type { SourceSqlRepository } from './source-sql.repository';

const QUERY = 'SELECT name FROM configuration_items WHERE environment = :env';

function spec(config: Record<string, unknown>, extra: Record<string, unknown> = {}): ToolAssetSpec {
  return {
    name: 'prod_items',
    description: 'items of an environment',
    kind: 'sql',
    tool_config: { query: QUERY, ...config },
    tool_input_schema: {
      type: 'object',
      properties: { env: { type: 'string' } },
      required: ['env'],
    },
    ...extra,
  } as unknown as ToolAssetSpec;
}

/** The repository's run, answering or failing as the test says, recording what it was given. */
function repository(answer: () => Promise<unknown>) {
  const runs: unknown[][] = [];
  const repo = {
    run: (...args: unknown[]) => {
      runs.push(args);
      return answer();
    },
  } as unknown as SqlToolRepository;
  return { repo, runs };
}

const context = { tenantId: 'tenant-1', deadline: Date.now() + 60_000 } as ToolContext;

function issuesOf(build: () => unknown): string[] {
  try {
    build();
  } catch (error) {
    return ((error as { details: { issues: Array<{ path: string }> } }).details.issues ?? []).map(
      (i) => i.path,
    );
  }
  return [];
}

describe('sql tools built from tool assets', () => {
  beforeAll(() => loadSqlParser());
  const ok = repository(() =>
    Promise.resolve({ columns: [{ name: 'name' }], rows: [{ name: 'a' }], truncated: false }),
  );

  it('lists every problem of a bad asset at once, each at its path', () => {
    const bad = spec(
      { query: 'SELECT name FROM configuration_items WHERE owner = :team', row_limit: 0, timeout_ms: 50 },
      { source_ref: 'crm' },
    );
    expect(issuesOf(() => createSqlTool(bad, { repository: ok.repo }))).toEqual([
      '/source_ref',
      '/tool_input_schema/properties',
      '/tool_config/row_limit',
      '/tool_config/timeout_ms',
    ]);
  });

  it('refuses a query that writes, and limits beyond the maxima', () => {
    expect(
      issuesOf(() => createSqlTool(spec({ query: 'DELETE FROM metrics' }), { repository: ok.repo })),
    ).toContain('/tool_config/query');
    expect(
      issuesOf(() =>
        createSqlTool(spec({ row_limit: SQL_TOOL_DEFAULTS.maxRowLimit + 1, timeout_ms: 60_001 }), {
          repository: ok.repo,
        }),
      ),
    ).toEqual(['/tool_config/row_limit', '/tool_config/timeout_ms']);
  });

  it('binds the tenant as $1 and the placeholders after it, with the default limits', async () => {
    const { repo, runs } = repository(() => Promise.resolve({ columns: [], rows: [], truncated: false }));
    const tool = createSqlTool(spec({}), { repository: repo });
    expect(tool.definition).toMatchObject({ source: 'dynamic', source_ref: 'internal', timeout_ms: 10_000 });
    await tool.execute(context, { env: 'prod' });
    const [[tenant, text, values, rowLimit, timeout]] = runs;
    expect(tenant).toBe('tenant-1');
    expect(text).toContain('environment = $2');
    expect(values).toEqual(['prod']);
    expect(rowLimit).toBe(SQL_TOOL_DEFAULTS.rowLimit);
    expect(timeout).toBeLessThanOrEqual(10_000);
  });

  it('passes an object value as JSON and refuses a call missing a placeholder value', async () => {
    const { repo, runs } = repository(() => Promise.resolve({ columns: [], rows: [], truncated: false }));
    const tool = createSqlTool(spec({}), { repository: repo });
    await tool.execute(context, { env: { region: '서울' } });
    expect(runs[0][2]).toEqual(['{"region":"서울"}']);
    await expect(tool.execute(context, {})).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { parameter: 'env' },
    });
  });

  it('says when rows were cut at the row limit', async () => {
    const { repo } = repository(() => Promise.resolve({ columns: [], rows: [{}, {}], truncated: true }));
    const result = await createSqlTool(spec({ row_limit: 2 }), { repository: repo }).execute(context, {
      env: 'x',
    });
    expect(result.data).toMatchObject({ row_count: 2, truncated: true });
    expect(result.warnings).toEqual(['Only the first 2 rows are returned.']);
  });

  it.each([
    ['a statement timeout', Object.assign(new Error('canceling statement'), { code: '57014' }), 'TIMEOUT'],
    [
      'an unknown column',
      Object.assign(new Error('column "x" does not exist'), { code: '42703' }),
      'EXECUTION_FAILED',
    ],
    ['a paused tenant', new SqlToolSuspendedError(3, 120), 'RATE_LIMITED'],
    ['a busy tenant', new SqlToolBusyError(2, 1), 'RATE_LIMITED'],
    ['too many rows examined', new SqlRowCapExceededError(1000), 'QUERY_TOO_EXPENSIVE'],
    ['a plan too expensive', new SqlCostExceededError(9e9), 'QUERY_TOO_EXPENSIVE'],
  ])('turns %s into a %s tool error', async (_what, error, code) => {
    const { repo } = repository(() => Promise.reject(error));
    await expect(
      createSqlTool(spec({}), { repository: repo }).execute(context, { env: 'x' }),
    ).rejects.toMatchObject({
      code,
    });
  });

  it('explains an unknown column in the OPS terms, and lets an unexpected error through as it is', async () => {
    const unknown = repository(() => Promise.reject(Object.assign(new Error('raw'), { code: '42703' })));
    await expect(
      createSqlTool(spec({}), { repository: unknown.repo }).execute(context, { env: 'x' }),
    ).rejects.toThrow('SQL error: unknown column');
    const crash = new TypeError('boom');
    const broken = repository(() => Promise.reject(crash));
    await expect(
      createSqlTool(spec({}), { repository: broken.repo }).execute(context, { env: 'x' }),
    ).rejects.toBe(crash);
  });

  it('runs a tool naming a source on that source, where the server text is kept', async () => {
    const calls: unknown[][] = [];
    const sources = {
      run: (...args: unknown[]) => {
        calls.push(args);
        return Promise.reject(
          Object.assign(new Error('permission denied for table racks'), { code: '42501' }),
        );
      },
    } as unknown as SourceSqlRepository;
    const tool = createSqlTool(
      spec({ query: 'SELECT name FROM racks WHERE env = :env' }, { source_ref: 'crm' }),
      {
        repository: ok.repo,
        sources,
      },
    );
    expect(tool.definition.source_ref).toBe('crm');
    await expect(tool.execute(context, { env: 'x' })).rejects.toThrow(
      /on source "crm".*may not read this.*racks/,
    );
    expect(calls[0].slice(0, 2)).toEqual(['tenant-1', 'crm']);
    expect(ok.runs).toHaveLength(0);
  });
});
