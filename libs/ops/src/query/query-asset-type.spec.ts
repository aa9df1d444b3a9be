import { AssetSpecValidator, AssetTypeRegistry, type AssetSchema } from '@app/asset-registry';
import { HTTP_TOOL_CONFIG_SCHEMA, toolAssetType } from '@app/tools';
import { SQL_TOOL_CONFIG_SCHEMA } from '../sql/sql-tool-config.schema';
import { QUERY_ASSET_TYPE } from './query-asset-type';

const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

const kinds = new Map<string, AssetSchema>([
  ['http', HTTP_TOOL_CONFIG_SCHEMA],
  ['sql', SQL_TOOL_CONFIG_SCHEMA],
]);
const registry = new AssetTypeRegistry();
registry.register(toolAssetType(() => kinds));
registry.register(QUERY_ASSET_TYPE);
const validator = new AssetSpecValidator(registry);

const sqlTool = {
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
};

describe("the ops lib's sql tool config and query assets", () => {
  it('accepts one read-only SELECT and names what is wrong with the config of an sql tool', () => {
    expect(validator.specIssues('tool', sqlTool)).toEqual([]);
    expect(
      fields(validator.specIssues('tool', { ...sqlTool, tool_config: { query: 'DELETE FROM x' } })),
    ).toEqual(['tool_config.query']);
    expect(
      fields(
        validator.specIssues('tool', {
          ...sqlTool,
          tool_config: { method: 'GET', url: 'https://x.example' },
        }),
      ),
    ).toEqual(expect.arrayContaining(['tool_config.query', 'tool_config.method']));
  });

  it('takes a query asset with one of SQL, Cypher or an HTTP request', () => {
    expect(validator.specIssues('query', { query_cypher: 'MATCH (n) RETURN n' })).toEqual([]);
    expect(fields(validator.specIssues('query', {}))).toEqual(['query_sql | query_cypher | query_http']);
    expect(fields(validator.specIssues('query', { query_sql: 'SELECT 1', tool_type: 'sql' }))).toEqual([
      'tool_type',
    ]);
  });
});
