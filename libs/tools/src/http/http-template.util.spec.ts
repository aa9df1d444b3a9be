import { ToolError } from '../core/tool.types';
import {
  readPath,
  renderJson,
  renderScalar,
  renderString,
  renderUrl,
  TemplateScope,
} from './http-template.util';
import { redactSecret } from '../secrets/secret-redaction.util';
import { httpToolConfigIssues } from './http-tool-config.util';

const scope: TemplateScope = {
  input: { title: 'a/b c?&', tags: ['x', 'y'], limit: 5, draft: false, nested: { id: 7 }, empty: null },
  context: { user_id: 'u-1', tenant_id: 't-1' },
  secret: 's3cr3t',
};

describe('http tool templates', () => {
  it('interpolates input, context and the secret into strings', () => {
    expect(renderString('Bearer {{secret}} for {{ context.user_id }}@{{context.tenant_id}}', scope)).toBe(
      'Bearer s3cr3t for u-1@t-1',
    );
    expect(renderString('{{input.nested.id}}-{{input.missing}}-{{input.tags}}', scope)).toBe('7--["x","y"]');
  });

  it('percent-encodes every value placed in a URL and refuses a missing one', () => {
    expect(renderUrl('https://blog.example/posts/{{input.title}}?u={{context.user_id}}', scope)).toBe(
      'https://blog.example/posts/a%2Fb%20c%3F%26?u=u-1',
    );
    expect(() => renderUrl('https://x.example/{{input.missing}}', scope)).toThrow(ToolError);
    expect(() => renderUrl('https://x.example/{{input.empty}}', scope)).toThrow(/needs a value/);
  });

  it('keeps a path value inside its segment: no climbing with dot segments or slashes', () => {
    const url = (p: string) =>
      new URL(renderUrl('https://x.example/api/{{input.p}}/x', { ...scope, input: { p } }));
    for (const p of ['..', '.']) {
      expect(() => url(p)).toThrow(ToolError);
      expect(() => url(p)).toThrow(/dot segment/);
    }
    expect(() => renderUrl('https://x.example/api/{{input.p}}./x', { ...scope, input: { p: '.' } })).toThrow(
      /dot segment/,
    );
    for (const p of ['a/../b', 'a/../..', '../x', 'a\\..\\b', 'x/.'])
      expect(() => url(p)).toThrow(/dot segment/);
    expect(url('group/project').pathname).toBe('/api/group%2Fproject/x');
    expect(url('/').pathname).toBe('/api/%2F/x');
    expect(url('..a').pathname).toBe('/api/..a/x');
    expect(renderUrl('https://x.example/api?q={{input.p}}', { ...scope, input: { p: '..' } })).toBe(
      'https://x.example/api?q=..',
    );
  });

  it('judges a path value by its most decoded spelling: percent layers, NFKC, path parameters', () => {
    const render = (p: string, template = 'https://x.example/api/{{input.p}}/x') =>
      renderUrl(template, { ...scope, input: { p } });
    const refused: Array<[string, RegExp]> = [
      ['%2e%2e', /dot segment/],
      ['%2E%2e', /dot segment/],
      ['.%2e', /dot segment/],
      ['%2e', /dot segment/],
      ['%252e%252e', /dot segment/],
      ['%25252e%25252e', /dot segment/],
      ['%u002e%u002e', /dot segment/],
      ['\uff0e\uff0e', /dot segment/],
      ['\uff0e', /dot segment/],
      ['..;', /dot segment/],
      ['..;jsessionid=1', /dot segment/],
      ['%2e%2e%3b', /dot segment/],
      ['.. ', /dot segment/],
      ['...', /dot segment/],
      ['..%2f', /dot segment/],
      ['..%2fetc', /dot segment/],
      ['a%2f..', /dot segment/],
      ['..%5c..', /dot segment/],
      ['\uff0e\uff0e\uff0fadmin', /dot segment/],
      ['a%2fb', /encoded or look-alike slash/],
      ['a%5cb', /encoded or look-alike slash/],
      ['a%252fb', /encoded or look-alike slash/],
      ['a\uff0fb', /encoded or look-alike slash/],
      ['a\uff3cb', /encoded or look-alike slash/],
      ['%c0%ae%c0%ae', /not UTF-8/],
      ['%e0%80%ae', /not UTF-8/],
      ['%252525252e', /more than 4 times/],
    ];
    for (const [raw, message] of refused) {
      const p = JSON.parse(`"${raw}"`) as string;
      expect(() => render(p)).toThrow(message);
      expect(() => render(p)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
    expect(render('v1.2')).toBe('https://x.example/api/v1.2/x');
    expect(render('..a')).toBe('https://x.example/api/..a/x');
    expect(render('50%')).toBe('https://x.example/api/50%25/x');
    expect(render('café')).toBe('https://x.example/api/caf%C3%A9/x');
    expect(render('a b')).toBe('https://x.example/api/a%20b/x');
    // A query value is not a path segment: dots there are data.
    expect(render('%2e%2e', 'https://x.example/api?q={{input.p}}')).toBe(
      'https://x.example/api?q=%252e%252e',
    );
  });

  it('keeps the JSON type of a string that is exactly one placeholder', () => {
    expect(renderScalar('{{input.limit}}', scope)).toBe(5);
    expect(renderScalar('{{input.draft}}', scope)).toBe(false);
    expect(renderScalar(' {{ input.tags }} '.trim(), scope)).toEqual(['x', 'y']);
    expect(renderScalar('limit={{input.limit}}', scope)).toBe('limit=5');
  });

  it('renders JSON bodies deeply, leaving out keys without a value', () => {
    expect(
      renderJson(
        {
          title: '{{input.title}}',
          tags: '{{input.tags}}',
          meta: {
            author: '{{context.user_id}}',
            n: 1,
            missing: '{{input.nope}}',
            list: ['{{input.limit}}', 'x'],
          },
          whole: '{{input.nested}}',
        },
        scope,
      ),
    ).toEqual({
      title: 'a/b c?&',
      tags: ['x', 'y'],
      meta: { author: 'u-1', n: 1, list: [5, 'x'] },
      whole: { id: 7 },
    });
  });

  it('reads dot paths over own properties only', () => {
    const body = { data: { items: [{ id: 'a' }, { id: 'b' }] } };
    expect(readPath(body, 'data.items.1.id')).toBe('b');
    expect(readPath(body, '$')).toBe(body);
    expect(readPath(body, 'data.nope.x')).toBeUndefined();
    expect(readPath(body, '__proto__')).toBeUndefined();
    expect(readPath(body, 'data.constructor')).toBeUndefined();
  });

  it('redacts the secret wherever a response echoes it', () => {
    expect(redactSecret({ a: ['key s3cr3t here'], b: 1 }, 's3cr3t')).toEqual({
      a: ['key [REDACTED] here'],
      b: 1,
    });
  });
});

describe('httpToolConfigIssues', () => {
  const valid = {
    method: 'POST',
    url: 'https://blog.example/api/v1/blog/posts/{{input.id}}',
    headers: { 'X-User-Api-Key': '{{secret}}' },
    body: { title: '{{input.title}}' },
    secret_ref: 'env:OPS_SECRET_BLOG',
  };

  it('accepts a well-formed config', () => {
    expect(httpToolConfigIssues(valid)).toEqual([]);
  });

  it.each([
    [{ url: 'https://{{input.host}}/x' }, '/url', /scheme, host or port/],
    [{ url: 'ftp://files.example/x' }, '/url', /http and https/],
    [{ url: 'https://user:pw@blog.example/x' }, '/url', /credentials/],
    [{ method: 'TRACE' }, '/method', /one of/],
    [{ secret_ref: 'OPS_SECRET_BLOG' }, '/secret_ref', /env:OPS_SECRET_/],
    [{ secret_ref: undefined }, '/headers', /no secret_ref/],
    [{ headers: { Host: 'evil' } }, '/headers/Host', /not a header/],
    [{ body: { x: '{{process.env.HOME}}' } }, '/body', /unknown placeholder/],
    [{ method: 'GET' }, '/body', /GET request has no body/],
    [{ timeout_ms: 0 }, '/timeout_ms', /integer/],
    [{ max_response_bytes: 10 ** 12 }, '/max_response_bytes', /integer/],
  ])('reports %j', (change, path, message) => {
    const issues = httpToolConfigIssues({ ...valid, ...change });
    expect(issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]),
    );
  });
});
