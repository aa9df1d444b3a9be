import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { FileLanguage, ImportBinding, ParsedFile, ParsedSymbol } from '../parsing/code-parser.types';
import type { EdgeKind, NodeKind } from '../code.types';

export interface NodeRow {
  id: string;
  path: string | null;
  kind: NodeKind;
  subkind: string;
  name: string;
  qualified_name: string;
  signature: string | null;
  start_line: number | null;
  end_line: number | null;
  doc_comment: string | null;
  language: string | null;
  exported: boolean;
  parent_id: string | null;
}

export interface EdgeRow {
  source_id: string;
  source_path: string;
  kind: EdgeKind;
  target_id: string | null;
  target_name: string;
  /** For edges resolved through an import: the imported module's path without extension. */
  target_path: string | null;
  receiver: string | null;
  /** How the target was found; `external` marks names from outside the repository (never resolved). */
  resolution: 'same_file' | 'external' | null;
  line: number | null;
  /** A module node to upsert and point to (non-relative imports). */
  module?: string;
}

/** File suffixes tried, in order, for an import's path without extension (TS/JS, Python, Go, Java). */
export const MODULE_SUFFIXES = [
  '',
  '.ts',
  '.tsx',
  '.d.ts',
  '.js',
  '.jsx',
  '.mjs',
  '.cjs',
  '.py',
  '.go',
  '.java',
  '/index.ts',
  '/index.tsx',
  '/index.js',
  '/__init__.py',
];

/** The repository path an import names, without extension, or null for a package outside the repository. */
export function importBase(fromPath: string, specifier: string, language: FileLanguage): string | null {
  const dir = path.posix.dirname(fromPath);
  if (language === 'python') {
    const dots = /^\.+/.exec(specifier)?.[0].length ?? 0;
    const rest = specifier.slice(dots).replace(/\./g, '/');
    if (dots === 0) return rest || null;
    let base = dir;
    for (let i = 1; i < dots; i++) base = path.posix.dirname(base);
    const joined = rest ? path.posix.join(base, rest) : base;
    return joined === '.' ? null : joined;
  }
  if (!specifier.startsWith('.')) return null;
  const joined = path.posix.normalize(path.posix.join(dir, specifier));
  if (joined.startsWith('..')) return null;
  return joined.replace(/\.(js|jsx|mjs|cjs|ts|tsx|mts|cts)$/, '');
}

function enclosingClass(symbols: ParsedSymbol[], from: number | null): ParsedSymbol | null {
  let current = from === null ? null : symbols[from];
  while (current) {
    if (current.kind === 'Class') return current;
    current = current.parent === null ? null : symbols[current.parent];
  }
  return null;
}

function ancestors(symbols: ParsedSymbol[], from: number | null): Set<number | null> {
  const chain = new Set<number | null>([null]);
  let current = from === null ? null : symbols[from];
  while (current) {
    chain.add(current.index);
    current = current.parent === null ? null : symbols[current.parent];
  }
  return chain;
}

const isMethod = (symbol: ParsedSymbol) => symbol.subkind === 'method' || symbol.subkind === 'constructor';

/**
 * A file's nodes and outgoing edges. Names are resolved here when the file itself declares them
 * (a function of the file, a method of the enclosing class); imported names carry the imported
 * module's path for the store to resolve; anything read off another object stays unresolved.
 */
export function buildFileGraph(
  filePath: string,
  language: FileLanguage,
  parsed: ParsedFile,
  lineCount: number,
): { nodes: NodeRow[]; edges: EdgeRow[]; fileNodeId: string; symbolIds: string[] } {
  const fileNodeId = randomUUID();
  const symbolIds = parsed.symbols.map(() => randomUUID());
  const nodes: NodeRow[] = [
    {
      id: fileNodeId,
      path: filePath,
      kind: 'File',
      subkind: 'file',
      name: path.posix.basename(filePath),
      qualified_name: filePath,
      signature: null,
      start_line: 1,
      end_line: lineCount,
      doc_comment: null,
      language,
      exported: false,
      parent_id: null,
    },
  ];
  const edges: EdgeRow[] = [];
  for (const symbol of parsed.symbols) {
    nodes.push({
      id: symbolIds[symbol.index],
      path: filePath,
      kind: symbol.kind,
      subkind: symbol.subkind,
      name: symbol.name,
      qualified_name: symbol.qualifiedName,
      signature: symbol.signature,
      start_line: symbol.startLine,
      end_line: symbol.endLine,
      doc_comment: symbol.docComment,
      language,
      exported: symbol.exported,
      parent_id: symbol.parent === null ? null : symbolIds[symbol.parent],
    });
    edges.push({
      source_id: symbol.parent === null ? fileNodeId : symbolIds[symbol.parent],
      source_path: filePath,
      kind: 'CONTAINS',
      target_id: symbolIds[symbol.index],
      target_name: symbol.name,
      target_path: null,
      receiver: null,
      resolution: 'same_file',
      line: symbol.startLine,
    });
  }

  const bindings = new Map<string, { binding: ImportBinding; base: string | null; specifier: string }>();
  for (const imported of parsed.imports) {
    const base = importBase(filePath, imported.specifier, language);
    edges.push({
      source_id: fileNodeId,
      source_path: filePath,
      kind: 'IMPORTS',
      target_id: null,
      target_name: imported.specifier,
      target_path: base,
      receiver: null,
      resolution: null,
      line: imported.line,
      ...(base === null ? { module: imported.specifier } : {}),
    });
    if (imported.reexport) continue;
    for (const binding of imported.bindings)
      bindings.set(binding.local, { binding, base, specifier: imported.specifier });
  }

  const topLevelByName = new Map<string, ParsedSymbol[]>();
  for (const symbol of parsed.symbols) {
    if (isMethod(symbol)) continue;
    const list = topLevelByName.get(symbol.name) ?? [];
    list.push(symbol);
    topLevelByName.set(symbol.name, list);
  }

  const named = (
    sourceIndex: number | null,
    kind: EdgeKind,
    name: string,
    receiver: string | null,
    line: number,
  ): EdgeRow => {
    const edge: EdgeRow = {
      source_id: sourceIndex === null ? fileNodeId : symbolIds[sourceIndex],
      source_path: filePath,
      kind,
      target_id: null,
      target_name: name,
      target_path: null,
      receiver,
      resolution: null,
      line,
    };
    if (name.startsWith('#')) {
      // A private name (`x.#fetch()`) can only be read inside its own class, whatever the receiver.
      const owner = enclosingClass(parsed.symbols, sourceIndex);
      const member = owner
        ? parsed.symbols.find((s) => s.parent === owner.index && s.name === name)
        : undefined;
      if (member) return { ...edge, target_id: symbolIds[member.index], resolution: 'same_file' };
      return { ...edge, resolution: 'external' };
    }
    if (receiver === 'this' || receiver === 'super') {
      const owner = enclosingClass(parsed.symbols, sourceIndex);
      const method =
        receiver === 'this' && owner
          ? parsed.symbols.find((s) => s.parent === owner.index && s.name === name)
          : undefined;
      if (method) return { ...edge, target_id: symbolIds[method.index], resolution: 'same_file' };
      return edge;
    }
    if (receiver === null) {
      const scope = ancestors(parsed.symbols, sourceIndex);
      const local = (topLevelByName.get(name) ?? []).find((s) => scope.has(s.parent));
      if (local) return { ...edge, target_id: symbolIds[local.index], resolution: 'same_file' };
      const imported = bindings.get(name);
      if (imported) {
        if (imported.binding.imported === '*') return { ...edge, resolution: 'external' };
        if (imported.base === null) return { ...edge, resolution: 'external' };
        return {
          ...edge,
          target_path: imported.base,
          target_name: imported.binding.imported === 'default' ? name : imported.binding.imported,
        };
      }
      return edge;
    }
    const imported = bindings.get(receiver);
    if (!imported || imported.base === null) return { ...edge, resolution: 'external' };
    // `ns.f()` on a namespace import: f of that module; `Ky.create()` on an imported class: its member.
    if (imported.binding.imported === '*') return { ...edge, target_path: imported.base, receiver: '*' };
    return {
      ...edge,
      target_path: imported.base,
      receiver: imported.binding.imported === 'default' ? receiver : imported.binding.imported,
    };
  };

  for (const call of parsed.calls) edges.push(named(call.from, 'CALLS', call.name, call.receiver, call.line));
  for (const heritage of parsed.heritage)
    edges.push(named(heritage.from, heritage.kind, heritage.name, null, heritage.line));
  return { nodes, edges, fileNodeId, symbolIds };
}
