import type { ToolDefinition } from '@app/tools';
import { contentKnowledgeVersion, knowledgeVersion, type KnowledgeVersionParts } from './knowledge-version';

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `${name} tool`,
  kind: 'http',
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
  output_schema: null,
  has_side_effects: false,
  timeout_ms: 1000,
  source: 'dynamic',
  version: 1,
  source_ref: null,
  ...extra,
});

const parts = (overrides: Partial<KnowledgeVersionParts> = {}): KnowledgeVersionParts => ({
  tools: [tool('a'), tool('b')],
  mappings: { name: 'keywords', version: 3 },
  catalogs: [{ source: 'internal', catalog: { name: 'main', version: 2 } }],
  resolvers: [{ name: 'aliases', version: 1 }],
  ...overrides,
});

describe('knowledgeVersion (the key of the knowledge a plan was made with)', () => {
  it('is stable for the same published state, whatever the listing order', () => {
    const key = knowledgeVersion(parts());
    expect(key).toMatch(/^kv1-[0-9a-f]{16}$/);
    expect(knowledgeVersion(parts())).toBe(key);
    expect(knowledgeVersion(parts({ tools: [tool('b'), tool('a')] }))).toBe(key);
    expect(
      knowledgeVersion(
        parts({
          resolvers: [
            { name: 'z', version: 1 },
            { name: 'aliases', version: 1 },
          ],
        }),
      ),
    ).toBe(
      knowledgeVersion(
        parts({
          resolvers: [
            { name: 'aliases', version: 1 },
            { name: 'z', version: 1 },
          ],
        }),
      ),
    );
  });

  it('changes with any publish of a tool, its hints, the mappings, a catalog or a resolver', () => {
    const key = knowledgeVersion(parts());
    const changed = [
      parts({ tools: [tool('a', { version: 2 }), tool('b')] }),
      parts({ tools: [tool('a', { planning_hints: { keywords: ['x'] } }), tool('b')] }),
      parts({ tools: [tool('a', { description: 'other words' }), tool('b')] }),
      parts({ tools: [tool('a')] }),
      parts({ mappings: { name: 'keywords', version: 4 } }),
      parts({ mappings: null }),
      parts({ catalogs: [{ source: 'internal', catalog: { name: 'main', version: 3 } }] }),
      parts({ catalogs: [{ source: 'internal', catalog: null }] }),
      parts({ resolvers: [] }),
    ].map(knowledgeVersion);
    for (const other of changed) expect(other).not.toBe(key);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('keys knowledge given as content the same way (evaluation): same content, same key', () => {
    const mappings = { mappings: [{ keyword: 'x', value: 'a', kind: 'tool' }] };
    const tools = [tool('a')];
    expect(contentKnowledgeVersion(tools, mappings, null)).toBe(
      contentKnowledgeVersion(tools, structuredClone(mappings), null),
    );
    expect(contentKnowledgeVersion(tools, mappings, null)).not.toBe(
      contentKnowledgeVersion(tools, null, null),
    );
  });
});
