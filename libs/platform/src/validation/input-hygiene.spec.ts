import { PlatformExceptionCode } from '../errors/app.exception';
import { jsonNestingDepth } from './json-depth';
import { assertSafeStrings, findUnsafeStrings } from './unsafe-strings';

describe('jsonNestingDepth', () => {
  it('counts nesting without recursing, ignoring brackets inside strings', () => {
    expect(jsonNestingDepth(Buffer.from('{"a":[1,{"b":"[[[{{"}]}'))).toBe(3);
    expect(jsonNestingDepth(Buffer.from('"\\"[["'))).toBe(0);
    const deep = Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(jsonNestingDepth(deep, 64)).toBe(65);
  });
});

describe('findUnsafeStrings', () => {
  it('names every field holding NUL or a lone surrogate, keys included', () => {
    const fields = findUnsafeStrings({
      name: 'a\u0000b',
      ok: 'emoji 😀 fine',
      nested: { list: ['x', 'lone \ud800'], ['k\u0000']: 1 },
      low: '\udc00',
    });
    expect(fields.map((f) => f.field).sort()).toEqual(['low', 'name', 'nested.k\u0000', 'nested.list.1']);
  });

  it('skips binary buffers and refuses values nested too deep', () => {
    expect(findUnsafeStrings({ buffer: Buffer.from([0, 0xd8]) })).toEqual([]);
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => findUnsafeStrings(deep)).toThrow(
      expect.objectContaining({ code: PlatformExceptionCode.PAYLOAD_TOO_DEEP }),
    );
  });

  it('throws a coded 400 with the field list', () => {
    expect(() => assertSafeStrings({ a: '\u0000' })).toThrow(
      expect.objectContaining({
        code: PlatformExceptionCode.INVALID_CHARACTERS,
        details: { fields: [expect.objectContaining({ field: 'a' })] },
      }),
    );
  });
});
