import { AssetSpecValidator, toFieldPath } from './asset-spec.validator';

const validator = new AssetSpecValidator();
const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

const httpTool = {
  tool_type: 'http',
  tool_config: {
    method: 'GET',
    url: 'https://status.example.com/api/{{input.host}}',
    secret_ref: 'env:OPS_SECRET_STATUS',
  },
  tool_input_schema: { type: 'object', properties: { host: { type: 'string' } }, required: ['host'] },
  tool_output_schema: { type: 'object', properties: { up: { type: 'boolean' } } },
};

describe('AssetSpecValidator', () => {
  it('formats JSON pointers as field paths', () => {
    expect(toFieldPath('/content/tables/0/columns/2/type')).toBe('content.tables[0].columns[2].type');
    expect(toFieldPath('/url', 'tool_config')).toBe('tool_config.url');
  });

  it('accepts every content contract shape', () => {
    expect(validator.specIssues('tool', httpTool)).toEqual([]);
    expect(
      validator.specIssues('tool', {
        tool_type: 'sql',
        tool_config: {
          query: 'WITH x AS (SELECT 1) SELECT * FROM x WHERE id = :id',
          row_limit: 10,
          timeout_ms: 500,
        },
        tool_input_schema: { type: 'object', properties: { id: { type: 'integer' } } },
        tool_output_schema: null,
        sample_input: { id: 1 },
        has_side_effects: false,
      }),
    ).toEqual([]);
    expect(
      validator.specIssues('catalog', {
        content: {
          source: { kind: 'internal', schema: 'public' },
          tables: [
            {
              name: 'servers',
              description: null,
              primary_key: ['id'],
              columns: [
                { name: 'environment', type: 'text', enum_values: ['dev', 'prod'], aliases: ['환경'] },
              ],
              references: [{ columns: ['rack_id'], table: 'racks', referenced_columns: ['id'] }],
            },
          ],
        },
      }),
    ).toEqual([]);
    expect(
      validator.specIssues('mapping', {
        content: { mappings: [{ keyword: '운영', value: 'prod', kind: 'filter', field: 'environment' }] },
      }),
    ).toEqual([]);
    expect(
      validator.specIssues('prompt', { scope: 'planner', engine: 'mustache', template: 'Hi {{q}}' }),
    ).toEqual([]);
    expect(validator.specIssues('query', { query_cypher: 'MATCH (n) RETURN n' })).toEqual([]);
  });

  it('names the bad field of a tool config for its tool_type', () => {
    expect(
      fields(validator.specIssues('tool', { ...httpTool, tool_config: { method: 'FETCH', url: 'ftp://x' } })),
    ).toEqual(['tool_config.method', 'tool_config.url']);
    expect(
      fields(
        validator.specIssues('tool', {
          ...httpTool,
          tool_config: { ...httpTool.tool_config, secret_ref: 'MY_KEY' },
        }),
      ),
    ).toEqual(['tool_config.secret_ref']);
    expect(
      fields(
        validator.specIssues('tool', {
          ...httpTool,
          tool_type: 'sql',
          tool_config: { query: 'DELETE FROM x' },
        }),
      ),
    ).toEqual(['tool_config.query']);
    expect(fields(validator.specIssues('tool', { ...httpTool, tool_type: 'sql' }))).toEqual(
      expect.arrayContaining(['tool_config.query', 'tool_config.method']),
    );
  });

  it('rejects schemas that are not JSON Schema and fields of another asset type', () => {
    expect(
      fields(validator.specIssues('tool', { ...httpTool, tool_output_schema: { type: 'banana' } })),
    ).toContain('tool_output_schema.type');
    expect(
      fields(validator.specIssues('prompt', { scope: 's', engine: 'e', template: 't', query_sql: 'x' })),
    ).toEqual(['query_sql']);
    expect(fields(validator.specIssues('query', {}))).toEqual(['query_sql | query_cypher | query_http']);
    expect(
      fields(
        validator.specIssues('mapping', {
          content: { mappings: [{ keyword: 'k', value: 'v', kind: 'filter' }] },
        }),
      ),
    ).toEqual(['content.mappings[0].field']);
  });

  it('checks data against admin-written schemas', () => {
    expect(fields(validator.dataIssues(httpTool.tool_input_schema, { host: 3 }, 'sample_input'))).toEqual([
      'sample_input.host',
    ]);
  });
});
