import { toolBreakingChanges } from './tool-breaking-changes.util';

const input = {
  type: 'object',
  properties: {
    host: { type: 'string' },
    limit: { type: 'integer' },
    env: { type: 'string', enum: ['prod', 'dev'] },
    filters: { type: 'object', properties: { status: { type: 'string' } } },
  },
  required: ['host'],
};
const output = { type: 'object', properties: { items: { type: 'array' }, total: { type: 'integer' } } };

describe('toolBreakingChanges', () => {
  it('finds nothing for additive changes and widened types', () => {
    const next = {
      ...input,
      properties: { ...input.properties, limit: { type: 'number' }, extra: { type: 'string' } },
    };
    const nextOutput = { ...output, properties: { ...output.properties, more: { type: 'string' } } };
    expect(toolBreakingChanges({ input, output }, { input: next, output: nextOutput })).toEqual([]);
  });

  it('reports removed, newly required, retyped and narrowed input fields and removed output fields', () => {
    const next = {
      type: 'object',
      properties: {
        host: { type: 'integer' },
        limit: { type: 'integer' },
        env: { type: 'string', enum: ['prod'] },
        filters: { type: 'object', properties: {} },
      },
      required: ['host', 'limit'],
    };
    const nextOutput = { type: 'object', properties: { items: { type: 'object' } } };
    const kinds = toolBreakingChanges({ input, output }, { input: next, output: nextOutput }).map(
      (c) => `${c.kind}:${c.path}`,
    );
    expect(kinds.sort()).toEqual(
      [
        'input_type_changed:host',
        'input_enum_narrowed:env',
        'input_field_removed:filters.status',
        'input_field_newly_required:limit',
        'output_type_changed:items',
        'output_field_removed:total',
      ].sort(),
    );
  });
});
