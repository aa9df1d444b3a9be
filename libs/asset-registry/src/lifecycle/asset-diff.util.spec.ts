import { diffAssets } from './asset-diff.util';

describe('diffAssets', () => {
  it('lists field-level changes with paths, matching named array items by name', () => {
    const before = {
      description: 'a',
      tool_config: { url: 'https://a', headers: { x: '1' } },
      content: { tables: [{ name: 'servers', columns: [{ name: 'id', type: 'int' }] }, { name: 'old' }] },
    };
    const after = {
      description: 'a',
      tool_config: { url: 'https://b', headers: {} },
      content: { tables: [{ name: 'new' }, { name: 'servers', columns: [{ name: 'id', type: 'bigint' }] }] },
      tags: ['x'],
    };
    expect(diffAssets(before, after)).toEqual([
      { path: 'tool_config.url', change: 'changed', from: 'https://a', to: 'https://b' },
      { path: 'tool_config.headers.x', change: 'removed', from: '1' },
      { path: 'content.tables[servers].columns[id].type', change: 'changed', from: 'int', to: 'bigint' },
      { path: 'content.tables[old]', change: 'removed', from: { name: 'old' } },
      { path: 'content.tables[new]', change: 'added', to: { name: 'new' } },
      { path: 'tags', change: 'added', to: ['x'] },
    ]);
    expect(diffAssets(before, before)).toEqual([]);
  });
});
