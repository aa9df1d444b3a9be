import { AssetTypeRegistry, type AssetTypeDefinition } from '../types/asset-type.registry';
import { CATALOG_ASSET_TYPE, SOURCE_ASSET_TYPE } from './asset-schemas';
import { AssetSpecValidator, toFieldPath } from './asset-spec.validator';

const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

/** A type of the test's own, as a lib above would register it. */
const NOTE: AssetTypeDefinition = {
  type: 'note',
  fields: ['scope', 'template', 'input_schema'],
  schema: {
    type: 'object',
    required: ['template'],
    properties: {
      scope: { type: 'string' },
      template: { type: 'string', minLength: 1 },
      input_schema: { type: ['object', 'null'] },
    },
  },
  namePattern: /^[a-z]+$/,
};

function validatorWith(...definitions: AssetTypeDefinition[]): AssetSpecValidator {
  const registry = new AssetTypeRegistry();
  for (const definition of definitions) registry.register(definition);
  return new AssetSpecValidator(registry);
}

const validator = validatorWith(CATALOG_ASSET_TYPE, SOURCE_ASSET_TYPE, NOTE);

describe('AssetSpecValidator', () => {
  it('formats JSON pointers as field paths', () => {
    expect(toFieldPath('/content/tables/0/columns/2/type')).toBe('content.tables[0].columns[2].type');
    expect(toFieldPath('/url', 'tool_config')).toBe('tool_config.url');
  });

  it("accepts the asset registry's own types and a registered one", () => {
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
      validator.specIssues('source', {
        content: { kind: 'postgres', connection: { url_ref: 'secret:CRM_URL' } },
      }),
    ).toEqual([]);
    expect(validator.specIssues('note', { template: 'Hi {{q}}', scope: 'planner' })).toEqual([]);
  });

  it('refuses a type nobody registered, naming the registered ones', () => {
    expect(validator.typeIssues('tool')).toEqual([
      { field: 'asset_type', message: 'must be one of catalog, note, source' },
    ]);
    expect(validator.specIssues('tool', { tool_type: 'http' })).toEqual(validator.typeIssues('tool'));
    expect(validator.typeIssues('note')).toEqual([]);
  });

  it('rejects fields of another type, bad content and schemas that are not JSON Schema', () => {
    expect(fields(validator.specIssues('note', { template: 't', query_sql: 'x' }))).toEqual(['query_sql']);
    expect(fields(validator.specIssues('note', { scope: 's' }))).toEqual(['template']);
    expect(
      fields(validator.specIssues('note', { template: 't', input_schema: { type: 'banana' } })),
    ).toContain('input_schema.type');
    expect(fields(validator.specIssues('catalog', { content: { tables: [] } }))).toEqual(['content.source']);
  });

  it("checks names against the type's pattern, else the general one", () => {
    expect(validator.nameIssues('note', 'Upper')).toEqual([
      { field: 'name', message: 'must match ^[a-z]+$' },
    ]);
    expect(validator.nameIssues('catalog', 'crm.public:v2')).toEqual([]);
    expect(fields(validator.nameIssues('catalog', '-x'))).toEqual(['name']);
  });

  it('compiles a schema built from other registrations again when they change', () => {
    const kinds = ['a'];
    const open: AssetTypeDefinition = {
      type: 'open',
      fields: ['content'],
      schema: () => ({ type: 'object', properties: { content: { enum: [...kinds] } } }),
    };
    const checker = validatorWith(open);
    expect(fields(checker.specIssues('open', { content: 'b' }))).toEqual(['content']);
    kinds.push('b');
    expect(checker.specIssues('open', { content: 'b' })).toEqual([]);
  });

  it('checks data against admin-written schemas', () => {
    const schema = { type: 'object', properties: { host: { type: 'string' } }, required: ['host'] };
    expect(fields(validator.dataIssues(schema, { host: 3 }, 'sample_input'))).toEqual(['sample_input.host']);
  });
});

describe('AssetTypeRegistry', () => {
  it('refuses a second definition of a type and lists the types sorted', () => {
    const registry = new AssetTypeRegistry();
    registry.register(SOURCE_ASSET_TYPE);
    registry.register(CATALOG_ASSET_TYPE);
    registry.register(CATALOG_ASSET_TYPE);
    expect(() => registry.register({ ...CATALOG_ASSET_TYPE })).toThrow(/already registered/);
    expect(registry.types()).toEqual(['catalog', 'source']);
    expect(Object.keys(registry.schemas())).toEqual(['catalog', 'source']);
  });
});
