import { AssetSpecValidator, AssetTypeRegistry, type AssetSchema } from '@app/asset-registry';
import { HTTP_TOOL_CONFIG_SCHEMA } from '../http/http-tool-config.schema';
import { POLICY_ASSET_TYPE, STAGE_ASSET_TYPE, toolAssetType } from './tool-asset-types';

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

function setup() {
  const kinds = new Map<string, AssetSchema>([['http', HTTP_TOOL_CONFIG_SCHEMA]]);
  const registry = new AssetTypeRegistry();
  registry.register(toolAssetType(() => kinds));
  registry.register(STAGE_ASSET_TYPE);
  registry.register(POLICY_ASSET_TYPE);
  return { kinds, validator: new AssetSpecValidator(registry) };
}

describe('the tools lib asset types', () => {
  it('accepts a tool of a registered kind and names the bad fields of its config', () => {
    const { validator } = setup();
    expect(validator.specIssues('tool', httpTool)).toEqual([]);
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
      fields(validator.specIssues('tool', { ...httpTool, tool_output_schema: { type: 'banana' } })),
    ).toContain('tool_output_schema.type');
  });

  it('takes as tool_type the kinds registered with a config schema, a later one too', () => {
    const { kinds, validator } = setup();
    const rpc = { ...httpTool, tool_type: 'rpc', tool_config: { endpoint: 'a' } };
    expect(validator.specIssues('tool', rpc)).toEqual([
      { field: 'tool_type', message: 'must be one of http' },
    ]);
    kinds.set('rpc', {
      type: 'object',
      required: ['endpoint'],
      properties: { endpoint: { type: 'string' } },
    });
    expect(validator.specIssues('tool', rpc)).toEqual([]);
    expect(fields(validator.specIssues('tool', { ...rpc, tool_config: {} }))).toEqual([
      'tool_config.endpoint',
    ]);
  });

  it('names tools strictly (LLM function names) and checks stages and policies', () => {
    const { validator } = setup();
    expect(fields(validator.nameIssues('tool', 'server.status'))).toEqual(['name']);
    expect(validator.nameIssues('stage', 'nightly.report')).toEqual([]);
    expect(
      validator.specIssues('stage', {
        content: { stages: [{ stage_name: 's', tools: [{ tool_name: 'x' }] }] },
      }),
    ).toEqual([]);
    expect(
      fields(
        validator.specIssues('policy', {
          content: { policy_type: 'tool_access', settings: { tools: { x: { roles: ['owner'] } } } },
        }),
      ),
    ).toEqual(['content.settings.tools.x.roles[0]']);
  });
});
