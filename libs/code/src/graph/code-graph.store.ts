import type { FileLanguage, ParsedFile } from '../parsing/code-parser.types';
import type { CodeSymbolView, EdgeKind, RelatedSymbol } from '../code.types';

export interface FileGraphInput {
  tenantId: string;
  repositoryId: string;
  path: string;
  language: FileLanguage;
  parsed: ParsedFile;
  lineCount: number;
}

export interface FileGraphWrite {
  /** Nodes written for the file (its File node, classes and functions). */
  nodes: number;
  /** The symbols' node ids, by their index in `parsed.symbols`. */
  symbolIds: string[];
  fileNodeId: string;
}

export interface GraphEdgeView {
  kind: EdgeKind;
  source: CodeSymbolView;
  target: CodeSymbolView | null;
  target_name: string;
  line: number | null;
}

/**
 * The code graph of a tenant's repositories: File, Class, Function and Module nodes with CONTAINS,
 * IMPORTS, CALLS, EXTENDS and IMPLEMENTS edges. Every call runs in the caller's tenant scope; the
 * PostgreSQL implementation relies on row-level security for the tenant and filters repositories
 * itself. A Neo4j implementation would implement the same methods (see docs/notes/code.md).
 */
export abstract class CodeGraphStore {
  /**
   * Replaces one file's nodes and outgoing edges in one transaction, then re-resolves the
   * repository's unresolved edges (incoming calls to the file's new symbols included).
   */
  abstract replaceFile(input: FileGraphInput): Promise<FileGraphWrite>;

  /** Removes a deleted file's nodes; edges into them become unresolved (their names are kept). */
  abstract deleteFile(repositoryId: string, path: string): Promise<number>;

  /** Records the document holding a symbol's search chunk. */
  abstract setDocuments(entries: Array<{ nodeId: string; documentId: string }>): Promise<void>;

  /** Document ids of a file's current symbols (their search chunks). */
  abstract documentsOfFile(repositoryId: string, path: string): Promise<string[]>;

  /** Symbols whose name or qualified name contains the query, best matches first. */
  abstract findSymbols(repositoryIds: string[], query: string, limit: number): Promise<CodeSymbolView[]>;

  abstract getSymbol(id: string): Promise<CodeSymbolView | null>;

  abstract fileNode(repositoryId: string, path: string): Promise<CodeSymbolView | null>;

  abstract symbolsByDocument(documentIds: string[]): Promise<Map<string, CodeSymbolView>>;

  /** Who calls the symbol, transitively to `depth`. */
  abstract callers(id: string, depth: number, limit: number): Promise<RelatedSymbol[]>;

  /** What the symbol calls, transitively to `depth` (unresolved calls keep their names). */
  abstract callees(id: string, depth: number, limit: number): Promise<RelatedSymbol[]>;

  /** Everything that may break when the given symbols change: transitive callers, subclasses, importers. */
  abstract impact(ids: string[], depth: number, limit: number): Promise<RelatedSymbol[]>;

  /** A shortest CALLS path from one symbol to another, as node ids, or null. */
  abstract path(fromId: string, toId: string, maxDepth: number): Promise<CodeSymbolView[] | null>;

  /** Edges of the given kinds leaving the symbol (or its file). */
  abstract outgoing(id: string, kinds: EdgeKind[]): Promise<GraphEdgeView[]>;

  /** Every resolved or unresolved edge of a repository (evaluation). */
  abstract edgesOf(
    repositoryId: string,
    kinds: EdgeKind[],
  ): Promise<
    Array<{
      kind: EdgeKind;
      source_path: string;
      line: number | null;
      target_path: string | null;
      target_name: string;
      resolved: boolean;
    }>
  >;
}
