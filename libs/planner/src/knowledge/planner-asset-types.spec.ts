import { AssetSpecValidator, AssetTypeRegistry } from '@app/asset-registry';
import { MAPPING_ASSET_TYPE, PROMPT_ASSET_TYPE, RESOLVER_ASSET_TYPE } from './planner-asset-types';

const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

const registry = new AssetTypeRegistry();
for (const type of [PROMPT_ASSET_TYPE, MAPPING_ASSET_TYPE, RESOLVER_ASSET_TYPE]) registry.register(type);
const validator = new AssetSpecValidator(registry);

describe("the planner's asset types", () => {
  it('accepts prompts, mappings and resolvers', () => {
    expect(
      validator.specIssues('prompt', { scope: 'planner', engine: 'mustache', template: 'Hi {{q}}' }),
    ).toEqual([]);
    expect(
      validator.specIssues('mapping', {
        content: { mappings: [{ keyword: '운영', value: 'prod', kind: 'filter', field: 'environment' }] },
      }),
    ).toEqual([]);
    expect(
      validator.specIssues('resolver', {
        content: { rules: [{ match_type: 'exact', pattern: '결제', field: 'code', value: 'PAY-1' }] },
      }),
    ).toEqual([]);
  });

  it('names the bad field', () => {
    expect(
      fields(validator.specIssues('prompt', { scope: 's', engine: 'e', template: 't', query_sql: 'x' })),
    ).toEqual(['query_sql']);
    expect(
      fields(
        validator.specIssues('mapping', {
          content: { mappings: [{ keyword: 'k', value: 'v', kind: 'filter' }] },
        }),
      ),
    ).toEqual(['content.mappings[0].field']);
    expect(
      fields(
        validator.specIssues('resolver', {
          content: { rules: [{ match_type: 'regex', pattern: '(', field: 'f', value: 'v' }] },
        }),
      ),
    ).toEqual(['content.rules[0].pattern']);
  });
});
