import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, ROOT } from '@test/support';

const CODE_CACHE = path.join(ROOT, 'dist/apps/api/src/code-cache.js');

/**
 * Loads ./a under the cache, in a fresh Node process: a requires ./b (which requires ./d) and imports
 * ./c.mjs (so Node compiles a itself, see CodeCache).
 */
function run(dir: string, nodeArgs: string[] = []) {
  const script = `
    const { CodeCache } = require(${JSON.stringify(CODE_CACHE)});
    const cache = CodeCache.enable('test', ${JSON.stringify(path.join(dir, 'cache'))});
    const a = require(${JSON.stringify(path.join(dir, 'a.js'))});
    a.run().then((result) => {
      process.stdout.write(JSON.stringify({ result, stats: cache && cache.stats, saved: cache ? cache.save() : null }));
    });
  `;
  const result = spawnSync(process.execPath, [...nodeArgs, '-e', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as {
    result: { b: string; dirname: string; resolved: string; esm: string; stack: string };
    stats: { hits: number; misses: number; rejected: number } | null;
    saved: boolean | null;
  };
}

describe('the V8 code cache of the server processes', () => {
  let dir: string;
  beforeAll(() => buildDist());
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ops-test-code-cache-'));
    writeFileSync(
      path.join(dir, 'a.js'),
      `const b = require('./b');
module.exports.run = async () => {
  let stack = '';
  try { b.fail(); } catch (error) { stack = error.stack; }
  return { b: b.value, dirname: __dirname, resolved: require.resolve('./b'), esm: (await import('./c.mjs')).value, stack };
};
`,
    );
    writeFileSync(
      path.join(dir, 'b.js'),
      `exports.value = 'one' + require('./d');\nexports.fail = () => { throw new Error('x'); };\n`,
    );
    writeFileSync(path.join(dir, 'd.js'), `module.exports = '!';\n`);
    writeFileSync(path.join(dir, 'c.mjs'), `export const value = 'esm';\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles modules from the cache an earlier process wrote, and a changed file afresh', () => {
    const first = run(dir);
    expect(first.stats).toEqual({ file: expect.any(String), hits: 0, misses: 2, rejected: 0 });
    expect(first.saved).toBe(true);
    // What the modules see is what Node gives them.
    expect(first.result).toMatchObject({
      b: 'one!',
      dirname: dir,
      resolved: path.join(dir, 'b.js'),
      esm: 'esm',
    });
    expect(first.result.stack).toContain(`${path.join(dir, 'b.js')}:2:`);

    const second = run(dir);
    expect(second.stats).toMatchObject({ hits: 2, misses: 0, rejected: 0 });
    expect(second.saved).toBe(false);
    expect(second.result).toEqual(first.result);

    // The same length, other content: V8 alone would accept the old bytecode; the content hash does not.
    writeFileSync(
      path.join(dir, 'b.js'),
      `exports.value = 'two' + require('./d');\nexports.fail = () => { throw new Error('x'); };\n`,
    );
    const third = run(dir);
    expect(third.stats).toMatchObject({ hits: 1, misses: 1 });
    expect(third.result.b).toBe('two!');
  });

  it('stays off when Node maps stack traces through source maps', () => {
    expect(run(dir, ['--enable-source-maps']).stats).toBeNull();
  });
});
