import type { DynamicToolFactory } from './dynamic-tool.factory';
import { ToolKindRegistry } from './tool-kind.registry';

const factory = (): DynamicToolFactory => ({
  create: () => {
    throw new Error('not built in this test');
  },
});

describe('ToolKindRegistry', () => {
  it('returns the factory a module registered for a kind, and nothing for a kind nobody registered', () => {
    const kinds = new ToolKindRegistry();
    const http = factory();
    kinds.register('http', http);
    expect(kinds.factoryFor('http')).toBe(http);
    expect(kinds.factoryFor('sql')).toBeUndefined();
    expect(kinds.kinds()).toEqual(['http']);
  });

  it('accepts the same factory twice but refuses a second factory for a kind', () => {
    const kinds = new ToolKindRegistry();
    const sql = factory();
    kinds.register('sql', sql);
    expect(() => kinds.register('sql', sql)).not.toThrow();
    expect(() => kinds.register('sql', factory())).toThrow(/already registered/);
  });
});
