import { CodeParser } from '../parsing/code-parser';
import { buildFileGraph, importBase } from './graph-edges.util';

const SOURCE = `import {helper} from './util.js';
import * as ns from '../lib/index.js';
import {Other} from './other.js';
import pkg from 'some-package';

export class Ky {
  static create() {
    const ky = new Ky();
    return ky.#fetch();
  }
  #fetch() {
    this.run();
    helper();
    ns.tool();
    Other.build();
    pkg();
    response.json();
  }
  run() {}
}
`;

describe('buildFileGraph', () => {
  it('resolves same-file names, marks imported ones for the store and never guesses member calls', async () => {
    const parsed = await new CodeParser().parse('source/core/Ky.ts', SOURCE);
    const graph = buildFileGraph('source/core/Ky.ts', 'typescript', parsed, 22);
    const nameOf = new Map(graph.nodes.map((n) => [n.id, n.qualified_name]));
    const calls = graph.edges
      .filter((e) => e.kind === 'CALLS')
      .map((e) => [
        e.target_name,
        e.target_id ? nameOf.get(e.target_id) : null,
        e.target_path,
        e.receiver,
        e.resolution,
      ]);
    expect(calls).toEqual([
      ['Ky', 'Ky', null, null, 'same_file'],
      ['#fetch', 'Ky.#fetch', null, 'ky', 'same_file'],
      ['run', 'Ky.run', null, 'this', 'same_file'],
      ['helper', null, 'source/core/util', null, null],
      ['tool', null, 'source/lib/index', '*', null],
      ['build', null, 'source/core/other', 'Other', null],
      ['pkg', null, null, null, 'external'],
      ['json', null, null, 'response', 'external'],
    ]);
    const imports = graph.edges
      .filter((e) => e.kind === 'IMPORTS')
      .map((e) => [e.target_path, e.module ?? null]);
    expect(imports).toEqual([
      ['source/core/util', null],
      ['source/lib/index', null],
      ['source/core/other', null],
      [null, 'some-package'],
    ]);
    expect(graph.edges.filter((e) => e.kind === 'CONTAINS')).toHaveLength(4);
  });

  it('maps import specifiers to repository paths', () => {
    expect(importBase('src/a/b.ts', '../c.js', 'typescript')).toBe('src/c');
    expect(importBase('src/a.ts', 'react', 'typescript')).toBeNull();
    expect(importBase('pkg/mod/a.py', '.db', 'python')).toBe('pkg/mod/db');
    expect(importBase('pkg/mod/a.py', '..util', 'python')).toBe('pkg/util');
    expect(importBase('a.ts', '../../outside.js', 'typescript')).toBeNull();
  });
});
