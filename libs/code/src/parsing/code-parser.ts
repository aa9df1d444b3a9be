import Parser from 'web-tree-sitter';
import type {
  CodeLanguage,
  FileLanguage,
  ImportBinding,
  ParsedFile,
  ParsedSymbol,
  SymbolKind,
} from './code-parser.types';

type Node = Parser.SyntaxNode;

const GRAMMAR_FILES: Record<CodeLanguage, string> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  java: 'tree-sitter-java.wasm',
  go: 'tree-sitter-go.wasm',
};

const EXTENSIONS: Record<string, CodeLanguage> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  java: 'java',
  go: 'go',
};

export function languageOf(path: string): FileLanguage {
  if (path.endsWith('.d.ts')) return 'typescript';
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return EXTENSIONS[ext] ?? 'text';
}

const SIGNATURE_MAX = 500;
const DOC_MAX = 2000;

function collapse(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The declaration text up to its body: `async get(input: Input): Promise<Response>`. */
function signatureOf(node: Node, body: Node | null): string {
  if (!body) return collapse(node.text, SIGNATURE_MAX);
  return collapse(node.text.slice(0, body.startIndex - node.startIndex), SIGNATURE_MAX);
}

function lastSegment(text: string): string {
  const plain = text.replace(/<[\s\S]*$/, '').trim();
  const parts = plain.split('.');
  return parts[parts.length - 1].trim();
}

/** A `/** ... *\/` (or, for Go/Python-less languages, `//`) comment right above the node. */
function leadingComment(node: Node, allowLineComments: boolean): string | null {
  let anchor: Node = node;
  while (
    anchor.parent &&
    ['export_statement', 'lexical_declaration', 'variable_declaration', 'decorated_definition'].includes(
      anchor.parent.type,
    )
  ) {
    anchor = anchor.parent;
  }
  const lines: string[] = [];
  let expectedRow = anchor.startPosition.row;
  let sibling = anchor.previousNamedSibling;
  while (sibling && (sibling.type === 'comment' || sibling.type === 'block_comment')) {
    if (sibling.endPosition.row < expectedRow - 1) break;
    const text = sibling.text;
    if (text.startsWith('/**')) {
      lines.unshift(text);
      break;
    }
    if (!allowLineComments || !text.startsWith('//')) break;
    lines.unshift(text);
    expectedRow = sibling.startPosition.row;
    sibling = sibling.previousNamedSibling;
  }
  if (lines.length === 0) return null;
  const cleaned = lines
    .join('\n')
    .replace(/^\/\*\*?|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\*|\/\/)\s?/, '').trimEnd())
    .join('\n')
    .trim();
  return cleaned ? cleaned.slice(0, DOC_MAX) : null;
}

function stringValue(node: Node | null): string | null {
  if (!node) return null;
  const text = node.text;
  return text.replace(/^[`'"]|[`'"]$/g, '');
}

class Extraction {
  readonly result: ParsedFile;
  private readonly stack: number[] = [];

  constructor(language: FileLanguage) {
    this.result = { language, symbols: [], imports: [], calls: [], heritage: [] };
  }

  get current(): number | null {
    return this.stack.length ? this.stack[this.stack.length - 1] : null;
  }

  addSymbol(
    node: Node,
    kind: SymbolKind,
    subkind: string,
    name: string,
    body: Node | null,
    doc: string | null,
    exported: boolean,
  ): number {
    const parent = this.current;
    const parentName = parent === null ? null : this.result.symbols[parent].qualifiedName;
    const symbol: ParsedSymbol = {
      index: this.result.symbols.length,
      kind,
      subkind,
      name,
      qualifiedName: parentName ? `${parentName}.${name}` : name,
      signature: signatureOf(node, body),
      startLine: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      docComment: doc,
      exported,
      parent,
    };
    this.result.symbols.push(symbol);
    return symbol.index;
  }

  within(index: number, walk: () => void): void {
    this.stack.push(index);
    try {
      walk();
    } finally {
      this.stack.pop();
    }
  }

  call(name: string, receiver: string | null, node: Node, construct = false): void {
    if (!name) return;
    this.result.calls.push({
      from: this.current,
      name,
      receiver,
      line: node.startPosition.row + 1,
      construct,
    });
  }

  inherit(from: number, kind: 'EXTENDS' | 'IMPLEMENTS', name: string, node: Node): void {
    if (!name) return;
    this.result.heritage.push({ from, kind, name, line: node.startPosition.row + 1 });
  }
}

type Walker = (node: Node, x: Extraction, walk: (n: Node) => void) => boolean;

const isExported = (node: Node): boolean =>
  node.parent?.type === 'export_statement' ||
  (['lexical_declaration', 'variable_declaration'].includes(node.parent?.type ?? '') &&
    node.parent?.parent?.type === 'export_statement');

function receiverOf(object: Node): string {
  if (object.type === 'this' || object.type === 'super') return object.type;
  if (object.type === 'identifier') return object.text;
  return '?';
}

/** TypeScript, TSX and JavaScript share their grammar's shapes. */
const walkScript: Walker = (node, x, walk) => {
  switch (node.type) {
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'interface_declaration': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const index = x.addSymbol(
        node,
        'Class',
        node.type === 'interface_declaration' ? 'interface' : 'class',
        name,
        body,
        leadingComment(node, false),
        isExported(node),
      );
      for (const child of node.namedChildren) {
        if (child.type === 'class_heritage') {
          for (const clause of child.namedChildren) {
            const kind = clause.type === 'implements_clause' ? 'IMPLEMENTS' : 'EXTENDS';
            const targets =
              clause.type === 'extends_clause'
                ? [clause.childForFieldName('value') ?? clause.namedChildren[0]]
                : clause.namedChildren;
            for (const target of targets)
              if (target) x.inherit(index, kind, lastSegment(target.text), target);
          }
        } else if (child.type === 'extends_type_clause') {
          for (const target of child.namedChildren)
            x.inherit(index, 'EXTENDS', lastSegment(target.text), target);
        }
      }
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'method_definition': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const subkind =
        node.type === 'method_definition' ? (name === 'constructor' ? 'constructor' : 'method') : 'function';
      const index = x.addSymbol(
        node,
        'Function',
        subkind,
        name,
        body,
        leadingComment(node, false),
        isExported(node),
      );
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'variable_declarator':
    case 'public_field_definition': {
      const value = node.childForFieldName('value');
      const nameNode = node.childForFieldName('name');
      if (
        !value ||
        !nameNode ||
        !['arrow_function', 'function_expression', 'function', 'generator_function'].includes(value.type) ||
        !['identifier', 'property_identifier', 'private_property_identifier'].includes(nameNode.type)
      )
        return false;
      const body = value.childForFieldName('body');
      const subkind = node.type === 'public_field_definition' ? 'method' : 'function';
      const index = x.addSymbol(
        node,
        'Function',
        subkind,
        nameNode.text,
        body,
        leadingComment(node, false),
        isExported(node.parent ?? node),
      );
      x.within(index, () => walk(value));
      return true;
    }
    case 'import_statement': {
      const specifier = stringValue(node.childForFieldName('source'));
      if (!specifier) return true;
      const bindings: ImportBinding[] = [];
      const clause = node.namedChildren.find((c) => c.type === 'import_clause');
      for (const part of clause?.namedChildren ?? []) {
        if (part.type === 'identifier') bindings.push({ local: part.text, imported: 'default' });
        else if (part.type === 'namespace_import') {
          const local = part.namedChildren[0]?.text;
          if (local) bindings.push({ local, imported: '*' });
        } else if (part.type === 'named_imports') {
          for (const spec of part.namedChildren) {
            const imported = spec.childForFieldName('name')?.text;
            if (!imported) continue;
            bindings.push({ local: spec.childForFieldName('alias')?.text ?? imported, imported });
          }
        }
      }
      x.result.imports.push({ specifier, bindings, line: node.startPosition.row + 1, reexport: false });
      return true;
    }
    case 'export_statement': {
      const source = stringValue(node.childForFieldName('source'));
      if (!source) return false;
      const bindings: ImportBinding[] = [];
      for (const part of node.namedChildren) {
        if (part.type === 'export_clause') {
          for (const spec of part.namedChildren) {
            const imported = spec.childForFieldName('name')?.text;
            if (imported)
              bindings.push({ local: spec.childForFieldName('alias')?.text ?? imported, imported });
          }
        }
      }
      x.result.imports.push({
        specifier: source,
        bindings,
        line: node.startPosition.row + 1,
        reexport: true,
      });
      return true;
    }
    case 'call_expression': {
      const fn = node.childForFieldName('function');
      if (fn?.type === 'identifier') {
        if (fn.text === 'require') {
          const arg = node.childForFieldName('arguments')?.namedChildren[0];
          if (arg?.type === 'string')
            x.result.imports.push({
              specifier: stringValue(arg) ?? '',
              bindings: [],
              line: node.startPosition.row + 1,
              reexport: false,
            });
        } else x.call(fn.text, null, node);
      } else if (fn?.type === 'member_expression') {
        const object = fn.childForFieldName('object');
        const property = fn.childForFieldName('property');
        if (object && property) x.call(property.text, receiverOf(object), node);
      }
      return false;
    }
    case 'new_expression': {
      const ctor = node.childForFieldName('constructor');
      if (ctor?.type === 'identifier') x.call(ctor.text, null, node, true);
      else if (ctor?.type === 'member_expression') {
        const object = ctor.childForFieldName('object');
        const property = ctor.childForFieldName('property');
        if (object && property) x.call(property.text, receiverOf(object), node, true);
      }
      return false;
    }
    default:
      return false;
  }
};

function pythonDocstring(body: Node | null): string | null {
  const first = body?.namedChildren[0];
  if (first?.type !== 'expression_statement') return null;
  const string = first.namedChildren[0];
  if (string?.type !== 'string') return null;
  return collapse(string.text.replace(/^[rbuRBU]*("""|'''|"|')|("""|'''|"|')$/g, ''), DOC_MAX) || null;
}

const walkPython: Walker = (node, x, walk) => {
  switch (node.type) {
    case 'class_definition':
    case 'function_definition': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const isClass = node.type === 'class_definition';
      const parent = x.current;
      const inClass = parent !== null && x.result.symbols[parent].kind === 'Class';
      const index = x.addSymbol(
        node,
        isClass ? 'Class' : 'Function',
        isClass ? 'class' : inClass ? (name === '__init__' ? 'constructor' : 'method') : 'function',
        name,
        body,
        pythonDocstring(body),
        parent === null && !name.startsWith('_'),
      );
      if (isClass) {
        for (const base of node.childForFieldName('superclasses')?.namedChildren ?? []) {
          if (base.type === 'identifier' || base.type === 'attribute')
            x.inherit(index, 'EXTENDS', lastSegment(base.text), base);
        }
      }
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'import_statement': {
      for (const part of node.namedChildren) {
        const dotted = part.type === 'aliased_import' ? part.childForFieldName('name') : part;
        if (!dotted) continue;
        const alias = part.type === 'aliased_import' ? part.childForFieldName('alias')?.text : undefined;
        x.result.imports.push({
          specifier: dotted.text,
          bindings: [{ local: alias ?? dotted.text.split('.')[0], imported: '*' }],
          line: node.startPosition.row + 1,
          reexport: false,
        });
      }
      return true;
    }
    case 'import_from_statement': {
      const module = node.childForFieldName('module_name');
      if (!module) return true;
      const bindings: ImportBinding[] = [];
      for (const part of node.namedChildren) {
        if (part.id === module.id) continue;
        if (part.type === 'dotted_name') bindings.push({ local: part.text, imported: part.text });
        else if (part.type === 'aliased_import') {
          const imported = part.childForFieldName('name')?.text;
          if (imported) bindings.push({ local: part.childForFieldName('alias')?.text ?? imported, imported });
        }
      }
      x.result.imports.push({
        specifier: module.text,
        bindings,
        line: node.startPosition.row + 1,
        reexport: false,
      });
      return true;
    }
    case 'call': {
      const fn = node.childForFieldName('function');
      if (fn?.type === 'identifier') x.call(fn.text, null, node);
      else if (fn?.type === 'attribute') {
        const object = fn.childForFieldName('object');
        const attribute = fn.childForFieldName('attribute');
        if (object && attribute)
          x.call(
            attribute.text,
            object.type === 'identifier' ? (object.text === 'self' ? 'this' : object.text) : '?',
            node,
          );
      }
      return false;
    }
    default:
      return false;
  }
};

const walkJava: Walker = (node, x, walk) => {
  switch (node.type) {
    case 'class_declaration':
    case 'interface_declaration':
    case 'enum_declaration':
    case 'record_declaration': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const subkind = node.type.replace('_declaration', '');
      const index = x.addSymbol(node, 'Class', subkind, name, body, leadingComment(node, false), true);
      const superclass = node.childForFieldName('superclass');
      if (superclass?.namedChildren[0])
        x.inherit(index, 'EXTENDS', lastSegment(superclass.namedChildren[0].text), superclass);
      for (const child of node.namedChildren) {
        if (child.type === 'super_interfaces' || child.type === 'extends_interfaces') {
          const kind = child.type === 'super_interfaces' ? 'IMPLEMENTS' : 'EXTENDS';
          for (const list of child.namedChildren)
            for (const type of list.namedChildren) x.inherit(index, kind, lastSegment(type.text), type);
        }
      }
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'method_declaration':
    case 'constructor_declaration': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const index = x.addSymbol(
        node,
        'Function',
        node.type === 'constructor_declaration' ? 'constructor' : 'method',
        name,
        body,
        leadingComment(node, false),
        true,
      );
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'import_declaration': {
      const path = node.text
        .replace(/^import\s+(static\s+)?/, '')
        .replace(/;\s*$/, '')
        .trim();
      const last = path.split('.').pop() ?? path;
      x.result.imports.push({
        specifier: path,
        bindings: last === '*' ? [] : [{ local: last, imported: last }],
        line: node.startPosition.row + 1,
        reexport: false,
      });
      return true;
    }
    case 'method_invocation': {
      const name = node.childForFieldName('name')?.text;
      const object = node.childForFieldName('object');
      if (name)
        x.call(
          name,
          object
            ? object.type === 'this'
              ? 'this'
              : object.type === 'identifier'
                ? object.text
                : '?'
            : null,
          node,
        );
      return false;
    }
    case 'object_creation_expression': {
      const type = node.childForFieldName('type');
      if (type) x.call(lastSegment(type.text), null, node, true);
      return false;
    }
    default:
      return false;
  }
};

const walkGo: Walker = (node, x, walk) => {
  switch (node.type) {
    case 'function_declaration':
    case 'method_declaration': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return false;
      const body = node.childForFieldName('body');
      const receiverType = node
        .childForFieldName('receiver')
        ?.namedChildren[0]?.childForFieldName('type')
        ?.text.replace(/^\*/, '');
      const owner = receiverType
        ? x.result.symbols.find((s) => s.kind === 'Class' && s.name === receiverType && s.parent === null)
        : undefined;
      const add = () =>
        x.addSymbol(
          node,
          'Function',
          receiverType ? 'method' : 'function',
          name,
          body,
          leadingComment(node, true),
          /^[A-Z]/.test(name),
        );
      const index = owner
        ? (() => {
            let created = 0;
            x.within(owner.index, () => (created = add()));
            return created;
          })()
        : add();
      x.within(index, () => body && walk(body));
      return true;
    }
    case 'type_spec': {
      const name = node.childForFieldName('name')?.text;
      const type = node.childForFieldName('type');
      if (!name || !type || !['struct_type', 'interface_type'].includes(type.type)) return false;
      const index = x.addSymbol(
        node.parent?.type === 'type_declaration' ? node.parent : node,
        'Class',
        type.type === 'struct_type' ? 'struct' : 'interface',
        name,
        type,
        leadingComment(node.parent ?? node, true),
        /^[A-Z]/.test(name),
      );
      x.within(index, () => walk(type));
      return true;
    }
    case 'import_spec': {
      const path = stringValue(node.childForFieldName('path'));
      if (!path) return true;
      const local = node.childForFieldName('name')?.text ?? path.split('/').pop() ?? path;
      x.result.imports.push({
        specifier: path,
        bindings: [{ local, imported: '*' }],
        line: node.startPosition.row + 1,
        reexport: false,
      });
      return true;
    }
    case 'call_expression': {
      const fn = node.childForFieldName('function');
      if (fn?.type === 'identifier') x.call(fn.text, null, node);
      else if (fn?.type === 'selector_expression') {
        const operand = fn.childForFieldName('operand');
        const field = fn.childForFieldName('field');
        if (operand && field) x.call(field.text, operand.type === 'identifier' ? operand.text : '?', node);
      }
      return false;
    }
    default:
      return false;
  }
};

const WALKERS: Record<CodeLanguage, Walker> = {
  typescript: walkScript,
  tsx: walkScript,
  javascript: walkScript,
  python: walkPython,
  java: walkJava,
  go: walkGo,
};

/**
 * Extracts symbols, imports, calls and inheritance from source text with tree-sitter (WASM
 * grammars, loaded once per process and language). Text files yield an empty extraction.
 */
export class CodeParser {
  private static ready: Promise<void> | null = null;
  private readonly languages = new Map<CodeLanguage, Promise<Parser.Language>>();
  private readonly parsers = new Map<CodeLanguage, Parser>();

  private static init(): Promise<void> {
    CodeParser.ready ??= Parser.init();
    return CodeParser.ready;
  }

  private async parserFor(language: CodeLanguage): Promise<Parser> {
    await CodeParser.init();
    let loading = this.languages.get(language);
    if (!loading) {
      loading = Parser.Language.load(require.resolve(`tree-sitter-wasms/out/${GRAMMAR_FILES[language]}`));
      this.languages.set(language, loading);
    }
    const grammar = await loading;
    let parser = this.parsers.get(language);
    if (!parser) {
      parser = new Parser();
      parser.setLanguage(grammar);
      this.parsers.set(language, parser);
    }
    return parser;
  }

  async parse(path: string, text: string): Promise<ParsedFile> {
    const language = languageOf(path);
    const extraction = new Extraction(language);
    if (language === 'text') return extraction.result;
    const parser = await this.parserFor(language);
    const tree = parser.parse(text);
    try {
      const walker = WALKERS[language];
      const walk = (node: Node): void => {
        for (const child of node.namedChildren) {
          if (!walker(child, extraction, walk)) walk(child);
        }
      };
      walk(tree.rootNode);
    } finally {
      tree.delete();
    }
    return extraction.result;
  }
}
