export const CODE_LANGUAGES = ['typescript', 'tsx', 'javascript', 'python', 'java', 'go'] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];
/** A file no grammar covers is kept and indexed as text only. */
export type FileLanguage = CodeLanguage | 'text';

export type SymbolKind = 'Class' | 'Function';

/** A class-like or function-like declaration found in one file. */
export interface ParsedSymbol {
  /** Index in `ParsedFile.symbols`; parents come before their children. */
  index: number;
  kind: SymbolKind;
  /** class | interface | struct | enum | function | method | constructor */
  subkind: string;
  name: string;
  /** Enclosing symbol names joined with `.` (`Ky.create`). */
  qualifiedName: string;
  signature: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  docComment: string | null;
  exported: boolean;
  parent: number | null;
}

/** One imported name: `local` in this file refers to `imported` of the module (`*` namespace, `default`). */
export interface ImportBinding {
  local: string;
  imported: string;
}

export interface ParsedImport {
  specifier: string;
  bindings: ImportBinding[];
  line: number;
  /** `export ... from`: the names are re-exported, not used here. */
  reexport: boolean;
}

export interface ParsedCall {
  /** The innermost enclosing symbol, or null for top-level code. */
  from: number | null;
  name: string;
  /** `this`, `super`, a plain identifier the member was read from, `?` for anything else, null for a bare call. */
  receiver: string | null;
  line: number;
  /** `new Foo()`. */
  construct: boolean;
}

export interface ParsedHeritage {
  from: number;
  kind: 'EXTENDS' | 'IMPLEMENTS';
  name: string;
  line: number;
}

export interface ParsedFile {
  language: FileLanguage;
  symbols: ParsedSymbol[];
  imports: ParsedImport[];
  calls: ParsedCall[];
  heritage: ParsedHeritage[];
}
