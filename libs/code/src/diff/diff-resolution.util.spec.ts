import { createTwoFilesPatch } from 'diff';
import { CodeException } from '../code.exception';
import {
  checkRequestSize,
  normalizePath,
  parseUnified,
  parseUnifiedWithin,
  resolveChanges,
} from './diff-resolution.util';

const LIMITS = { maxFileBytes: 100, maxRequestBytes: 150, maxFiles: 3 };
const stored = new Map([
  ['a.ts', 'one\ntwo\nthree\n'],
  ['b.ts', 'bee\n'],
]);
const fail = (fn: () => unknown): CodeException => {
  try {
    fn();
  } catch (error) {
    return error as CodeException;
  }
  throw new Error('did not throw');
};

describe('resolveChanges', () => {
  it('applies whole texts in request order and drops what does not change', () => {
    expect(
      resolveChanges(
        {
          files: [
            { path: 'c.ts', status: 'added', after: 'sea\n' },
            { path: 'a.ts', status: 'modified', after: 'one\ntwo\nthree\n' },
            { path: 'd.ts', status: 'renamed', old_path: 'b.ts' },
          ],
        },
        stored,
        LIMITS,
      ),
    ).toEqual([
      { path: 'c.ts', text: 'sea\n' },
      { path: 'b.ts', text: null },
      { path: 'd.ts', text: 'bee\n' },
    ]);
  });

  it('applies a unified diff, skips one already applied, and names a hunk that does not apply', () => {
    const unified = createTwoFilesPatch('a/a.ts', 'b/a.ts', 'one\ntwo\nthree\n', 'one\n2\nthree\n');
    expect(resolveChanges({ unified }, stored, LIMITS)).toEqual([{ path: 'a.ts', text: 'one\n2\nthree\n' }]);
    expect(resolveChanges({ unified }, new Map([['a.ts', 'one\n2\nthree\n']]), LIMITS)).toEqual([]);
    const error = fail(() => resolveChanges({ unified }, new Map([['a.ts', 'x\ny\n']]), LIMITS));
    expect(error).toMatchObject({ code: 'HUNK_DOES_NOT_APPLY', details: { file: 'a.ts', hunk: 1 } });
  });

  it('creates and deletes files from git headers', () => {
    const created = createTwoFilesPatch('/dev/null', 'b/new.ts', '', 'fresh\n');
    expect(resolveChanges({ unified: created }, stored, LIMITS)).toEqual([
      { path: 'new.ts', text: 'fresh\n' },
    ]);
    const deleted = createTwoFilesPatch('a/b.ts', '/dev/null', 'bee\n', '');
    expect(resolveChanges({ unified: deleted }, stored, LIMITS)).toEqual([{ path: 'b.ts', text: null }]);
  });

  it('refuses paths outside the repository, missing texts and oversize input with the limit', () => {
    expect(() => normalizePath('../x.ts')).toThrow(CodeException);
    expect(() => normalizePath('/etc/passwd')).toThrow(CodeException);
    expect(normalizePath('./src\\a.ts')).toBe('src/a.ts');
    expect(
      fail(() => resolveChanges({ files: [{ path: 'x.ts', status: 'added' }] }, stored, LIMITS)),
    ).toMatchObject({
      code: 'INVALID_DIFF',
    });
    expect(
      fail(() =>
        checkRequestSize([{ path: 'x', status: 'added', after: 'x'.repeat(101) }], undefined, LIMITS),
      ),
    ).toMatchObject({
      code: 'DIFF_TOO_LARGE',
      details: { limit: { key: 'CODE_MAX_FILE_BYTES', limit: 100 } },
    });
    expect(fail(() => checkRequestSize(undefined, 'x'.repeat(151), LIMITS))).toMatchObject({
      details: { limit: { key: 'CODE_MAX_REQUEST_BYTES' } },
    });
    const four = Array.from({ length: 4 }, (_, i) => ({ path: `${i}.ts`, status: 'deleted' as const }));
    expect(fail(() => checkRequestSize(four, undefined, LIMITS))).toMatchObject({
      details: { limit: { key: 'CODE_MAX_FILES_PER_DIFF' } },
    });
    expect(() => parseUnified('not a diff')).toThrow(CodeException);
  });

  it('applies the file cap to a unified diff too, naming the count and the limit', () => {
    const unified = Array.from({ length: 4 }, (_, i) =>
      createTwoFilesPatch('/dev/null', `b/${i}.ts`, '', `${i}\n`),
    ).join('');
    const error = fail(() => resolveChanges({ unified }, stored, LIMITS));
    expect(error).toMatchObject({
      code: 'DIFF_TOO_LARGE',
      details: { limit: { key: 'CODE_MAX_FILES_PER_DIFF', limit: 3, observed: 4 } },
    });
    expect(error.message).toBe('The diff has 4 files; the limit is 3 (CODE_MAX_FILES_PER_DIFF).');
    const three = Array.from({ length: 3 }, (_, i) =>
      createTwoFilesPatch('/dev/null', `b/${i}.ts`, '', `${i}\n`),
    ).join('');
    expect(parseUnifiedWithin(three, LIMITS)).toHaveLength(3);
  });

  it('applies a change over its "before" text only, naming the file whose stored text differs', () => {
    const change = { path: 'a.ts', status: 'modified' as const, before: 'one\ntwo\nthree\n', after: 'one\n' };
    expect(resolveChanges({ files: [change] }, stored, LIMITS)).toEqual([{ path: 'a.ts', text: 'one\n' }]);
    expect(resolveChanges({ files: [change] }, new Map([['a.ts', 'one\n']]), LIMITS)).toEqual([]);
    const edited = new Map([...stored, ['a.ts', 'one\nTWO\nthree\n']]);
    const error = fail(() =>
      resolveChanges({ files: [{ path: 'c.ts', status: 'added', after: 'sea\n' }, change] }, edited, LIMITS),
    );
    expect(error).toMatchObject({ code: 'BEFORE_DOES_NOT_MATCH', details: { file: 'a.ts' } });
    expect(error.message).toContain('a.ts');
    expect(
      fail(() =>
        resolveChanges(
          { files: [{ path: 'e.ts', status: 'renamed', old_path: 'gone.ts', before: 'x\n' }] },
          stored,
          LIMITS,
        ),
      ),
    ).toMatchObject({ code: 'BEFORE_DOES_NOT_MATCH', details: { file: 'gone.ts' } });
    const deleted = { path: 'b.ts', status: 'deleted' as const, before: 'bee\n' };
    expect(resolveChanges({ files: [deleted] }, stored, LIMITS)).toEqual([{ path: 'b.ts', text: null }]);
    expect(resolveChanges({ files: [deleted] }, new Map(), LIMITS)).toEqual([]);
  });
});
