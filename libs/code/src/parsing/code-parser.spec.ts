import { CodeParser, languageOf } from './code-parser';

const TS = `import ky, {helper as h} from './util.js';
import * as ns from 'node:path';
export {thing} from './thing.js';

/** Authenticates a user. */
export async function authenticate(name: string): Promise<boolean> {
  const ok = h(name);
  return check(ok) && ns.join('a') !== '';
}

function check(value: unknown): boolean {
  return Boolean(value);
}

export class Session extends Base implements Closeable {
  private readonly retry = () => this.open();
  open(): void {
    this.retry();
    new Token();
  }
}

export const getUserPosts = async (id: number) => ky.get(id);
`;

describe('CodeParser', () => {
  const parser = new CodeParser();

  it('knows languages by extension', () => {
    expect(languageOf('a/b.ts')).toBe('typescript');
    expect(languageOf('a/b.py')).toBe('python');
    expect(languageOf('README.md')).toBe('text');
  });

  it('extracts symbols, imports, calls and inheritance from TypeScript', async () => {
    const parsed = await parser.parse('src/auth.ts', TS);
    const names = parsed.symbols.map((s) => [s.qualifiedName, s.kind, s.subkind, s.exported]);
    expect(names).toEqual([
      ['authenticate', 'Function', 'function', true],
      ['check', 'Function', 'function', false],
      ['Session', 'Class', 'class', true],
      ['Session.retry', 'Function', 'method', false],
      ['Session.open', 'Function', 'method', false],
      ['getUserPosts', 'Function', 'function', true],
    ]);
    const auth = parsed.symbols[0];
    expect(auth.docComment).toBe('Authenticates a user.');
    expect(auth.signature).toBe('async function authenticate(name: string): Promise<boolean>');
    expect([auth.startLine, auth.endLine]).toEqual([6, 9]);
    expect(parsed.imports).toEqual([
      {
        specifier: './util.js',
        bindings: [
          { local: 'ky', imported: 'default' },
          { local: 'h', imported: 'helper' },
        ],
        line: 1,
        reexport: false,
      },
      { specifier: 'node:path', bindings: [{ local: 'ns', imported: '*' }], line: 2, reexport: false },
      { specifier: './thing.js', bindings: [{ local: 'thing', imported: 'thing' }], line: 3, reexport: true },
    ]);
    const calls = parsed.calls.map((c) => [
      c.from === null ? null : parsed.symbols[c.from].name,
      c.name,
      c.receiver,
    ]);
    expect(calls).toEqual([
      ['authenticate', 'h', null],
      ['authenticate', 'check', null],
      ['authenticate', 'join', 'ns'],
      ['check', 'Boolean', null],
      ['retry', 'open', 'this'],
      ['open', 'retry', 'this'],
      ['open', 'Token', null],
      ['getUserPosts', 'get', 'ky'],
    ]);
    expect(parsed.heritage.map((h) => [h.kind, h.name])).toEqual([
      ['EXTENDS', 'Base'],
      ['IMPLEMENTS', 'Closeable'],
    ]);
  });

  it('extracts Python, Java and Go declarations and calls', async () => {
    const py = await parser.parse(
      'a.py',
      'from .db import query as q\nclass User(Base):\n    """A user."""\n    def save(self):\n        self.validate()\n        q()\n',
    );
    expect(py.symbols.map((s) => [s.qualifiedName, s.subkind])).toEqual([
      ['User', 'class'],
      ['User.save', 'method'],
    ]);
    expect(py.symbols[0].docComment).toBe('A user.');
    expect(py.calls.map((c) => [c.name, c.receiver])).toEqual([
      ['validate', 'this'],
      ['q', null],
    ]);
    const java = await parser.parse(
      'A.java',
      'import x.y.Z;\n/** Doc. */\npublic class A extends B implements C { void run() { go(); this.stop(); new Z(); } }',
    );
    expect(java.symbols.map((s) => s.qualifiedName)).toEqual(['A', 'A.run']);
    expect(java.heritage.map((h) => [h.kind, h.name])).toEqual([
      ['EXTENDS', 'B'],
      ['IMPLEMENTS', 'C'],
    ]);
    const go = await parser.parse(
      'main.go',
      'package main\nimport "fmt"\ntype Server struct{}\n// Run runs.\nfunc (s *Server) Run() { fmt.Println(helper()) }\nfunc helper() string { return "" }\n',
    );
    expect(go.symbols.map((s) => [s.qualifiedName, s.docComment])).toEqual([
      ['Server', null],
      ['Server.Run', 'Run runs.'],
      ['helper', null],
    ]);
    expect(go.calls.map((c) => [c.name, c.receiver])).toEqual([
      ['Println', 'fmt'],
      ['helper', null],
    ]);
  });
});
