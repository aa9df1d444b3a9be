import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { OPS_TOOL_DEFINITIONS } from './tools/builtin-tool-definitions';

/**
 * The OPS built-in tools' names belong to libs/ops: another lib that needs one reaches it through ops's
 * exports (a registration port, a definition), never by writing the name. This fails when a file of
 * another lib (specs aside) names one, in code or in comments.
 */
const LIBS = path.resolve(__dirname, '../..');
const OWNER = path.resolve(__dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' ? [] : files(full);
    // Text files only (the embedded database image is binary); specs may name anything.
    return /\.(tsx?|m?js|cjs|json|md|sql)$/.test(full) && !/\.spec\.tsx?$/.test(full) ? [full] : [];
  });
}

const names = OPS_TOOL_DEFINITIONS.map((tool) => tool.name);
const patterns = names.map((name) => ({ name, re: new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`) }));

function hits(text: string): string[] {
  return patterns.filter(({ re }) => re.test(text)).map(({ name }) => name);
}

describe('OPS tool names stay in libs/ops', () => {
  it('no other lib names an OPS built-in tool outside its specs', () => {
    const found: string[] = [];
    for (const lib of readdirSync(LIBS).map((entry) => path.join(LIBS, entry))) {
      if (lib === OWNER || !statSync(lib).isDirectory()) continue;
      for (const file of files(lib))
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            for (const name of hits(line))
              found.push(`${path.relative(LIBS, file)}:${i + 1} "${name}": ${line.trim()}`);
          });
    }
    expect(found).toEqual([]);
  });

  it('reads the names from the definitions and matches whole names only (the check itself works)', () => {
    expect(names.length).toBeGreaterThanOrEqual(4);
    expect(hits(`{ part: 'primary', tool: '${names[0]}' }`)).toEqual([names[0]]);
    expect(hits(`// ${names[1]}, ...`)).toEqual([names[1]]);
    expect(hits(`const ${names[0]}_v2 = 1;`)).toEqual([]);
  });
});
