import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bindUserId,
  parseArguments,
  toLlmToolSpec,
  toolMessageContent,
  withoutUserId,
} from './agent-tools.util';
import {
  BLOG_BASE_URL_PLACEHOLDER,
  BLOG_TENANT_SECRET_REF,
  blogToolAssets,
  toToolAssetSpec,
} from './blog/blog-tool-specs';

const schema = {
  type: 'object',
  properties: { user_id: { type: 'integer' }, limit: { type: 'integer' } },
  required: ['user_id', 'limit'],
  additionalProperties: false,
};

describe('agent tool helpers', () => {
  it('hides user_id from the schema the model sees', () => {
    expect(withoutUserId(schema)).toEqual({
      type: 'object',
      properties: { limit: { type: 'integer' } },
      required: ['limit'],
      additionalProperties: false,
    });
    const spec = toLlmToolSpec({
      name: 't',
      description: 'd',
      kind: 'http',
      input_schema: schema,
      output_schema: null,
      has_side_effects: false,
      timeout_ms: 1000,
      source: 'dynamic',
    });
    expect(spec.parameters.properties).not.toHaveProperty('user_id');
    const plain = { type: 'object', properties: { q: { type: 'string' } } };
    expect(withoutUserId(plain)).toBe(plain);
  });

  it('replaces a model-supplied user_id with the request user, typed as the schema says', () => {
    expect(bindUserId(schema, { user_id: 999, limit: 3 }, '42')).toEqual({
      input: { user_id: 42, limit: 3 },
      overridden: true,
    });
    expect(bindUserId(schema, { limit: 3 }, '42')).toEqual({
      input: { user_id: 42, limit: 3 },
      overridden: false,
    });
    const either = { type: 'object', properties: { user_id: { type: ['integer', 'string'] } } };
    expect(bindUserId(either, {}, '42').input).toEqual({ user_id: '42' });
    expect(bindUserId(schema, {}, 'alice').input).toEqual({ user_id: 'alice' });
  });

  it('strips user_id from tools that do not declare it', () => {
    const plain = { type: 'object', properties: { q: { type: 'string' } } };
    expect(bindUserId(plain, { q: 'x', user_id: 'mallory' }, '42')).toEqual({
      input: { q: 'x' },
      overridden: true,
    });
  });

  it('parses arguments as a JSON object only', () => {
    expect(parseArguments('{"a":1}')).toEqual({ args: { a: 1 } });
    expect(parseArguments('')).toEqual({ args: {} });
    expect(parseArguments('[1]')).toEqual({ error: 'the arguments must be a JSON object' });
    expect(parseArguments('{oops')).toMatchObject({ error: expect.stringContaining('not valid JSON') });
  });

  it('cuts long tool output for the prompt', () => {
    const text = toolMessageContent({ text: 'x'.repeat(100) }, 20);
    expect(text.startsWith('{"text":"xxxxxxxxxxx')).toBe(true);
    expect(text).toContain('...(truncated');
  });
});

describe('blog tool specs', () => {
  it('match the JSON asset files in examples/tool-assets/blog (the body of POST /api/assets: spec fields at the top level)', () => {
    for (const { spec, ...asset } of blogToolAssets(BLOG_BASE_URL_PLACEHOLDER, BLOG_TENANT_SECRET_REF)) {
      const file = path.resolve(__dirname, '../../../../examples/tool-assets/blog', `${asset.name}.json`);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...asset, ...spec });
    }
  });

  it('take the base URL without a trailing slash', () => {
    const [get] = blogToolAssets('http://blog.internal:8080/').map(toToolAssetSpec);
    expect(get).toMatchObject({ name: 'get_user_blog_posts', kind: 'http' });
    expect((get.tool_config as { url: string }).url).toBe('http://blog.internal:8080/api/v1/blog/posts');
  });
});
