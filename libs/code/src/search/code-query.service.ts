import { Injectable } from '@nestjs/common';
import { DocumentSearchService } from '@app/documents';
import { CodeException, CodeExceptionCode } from '../code.exception';
import type {
  CodeFileView,
  CodeSymbolDetail,
  CodeSymbolView,
  RelatedSymbol,
  RepositoryView,
} from '../code.types';
import { CodeFilesRepository } from '../store/code-files.repository';
import { CodeRepositoriesRepository } from '../store/code-repositories.repository';
import { CodeGraphStore } from '../graph/code-graph.store';

export interface CodeSearchHit {
  file: string;
  symbol: string | null;
  kind: string | null;
  language: string | null;
  start_line: number | null;
  end_line: number | null;
  signature: string | null;
  preview: string;
  score: number;
  symbol_id: string | null;
}

export interface GraphSearchHit {
  id: string;
  entity_name: string;
  entity_type: string;
  kind: string;
  file: string | null;
  start_line: number | null;
  end_line: number | null;
  signature: string | null;
  doc_comment: string | null;
  calls: string[];
  called_by: string[];
  imports: string[];
  extends: string[];
  implements: string[];
}

const PREVIEW_CHARS = 400;
/** Words of a question that are not symbol names ("which functions does authenticate call"). */
const QUESTION_WORDS = new Set(
  'which what does did function functions call calls called calling the find show tell list logic code method methods class classes that this with from into who where how are is and for about its their'.split(
    ' ',
  ),
);

/**
 * The names a graph query may mean: the query itself when it is one identifier, else the
 * identifier-like words of a question (`authenticate 함수가 어떤 함수를 호출하는지` -> `authenticate`).
 */
export function symbolCandidates(query: string): string[] {
  const trimmed = query.trim();
  if (/^[\w$#.]+$/.test(trimmed)) return [trimmed];
  const words = [...trimmed.matchAll(/[A-Za-z_$#][\w$.]*/g)]
    .map((m) => m[0].replace(/[.]+$/, ''))
    .filter((word) => word.length >= 3 && !QUESTION_WORDS.has(word.toLowerCase()));
  return [...new Set(words)];
}
const describe = (related: RelatedSymbol): string =>
  related.symbol
    ? `${related.symbol.qualified_name} (${related.symbol.path}:${related.symbol.start_line})`
    : related.name;

/**
 * What people and tools ask of a user's code: repositories, files, symbols with their callers and
 * callees, code search over the chunks (the document store's hybrid search, restricted to the
 * user's code) and graph search. A user sees only their own repositories; the tenant is the scope.
 */
@Injectable()
export class CodeQueryService {
  constructor(
    private readonly repositories: CodeRepositoriesRepository,
    private readonly fileStore: CodeFilesRepository,
    private readonly graph: CodeGraphStore,
    private readonly documents: DocumentSearchService,
  ) {}

  listRepositories(tenantId: string, userId: string | null): Promise<RepositoryView[]> {
    void tenantId;
    return this.repositories.listRepositories(userId);
  }

  private async repository(id: string) {
    const repository = await this.repositories.findRepository(id);
    if (!repository) throw CodeException.notFound(CodeExceptionCode.REPOSITORY_NOT_FOUND, 'Repository', id);
    return repository;
  }

  async symbols(
    tenantId: string,
    repositoryId: string,
    query: string,
    limit: number,
  ): Promise<CodeSymbolView[]> {
    void tenantId;
    await this.repository(repositoryId);
    return this.graph.findSymbols([repositoryId], query, limit);
  }

  async files(
    tenantId: string,
    repositoryId: string,
    path: string | null,
    limit: number,
  ): Promise<CodeFileView[]> {
    void tenantId;
    await this.repository(repositoryId);
    const files = await this.fileStore.listFiles(repositoryId, path, limit);
    if (path && files.length === 0)
      throw CodeException.notFound(CodeExceptionCode.FILE_NOT_FOUND, 'File', path);
    return files;
  }

  async symbol(tenantId: string, id: string, depth = 1): Promise<CodeSymbolDetail> {
    void tenantId;
    const symbol = await this.graph.getSymbol(id);
    if (!symbol) throw CodeException.notFound(CodeExceptionCode.SYMBOL_NOT_FOUND, 'Symbol', id);
    const [callers, callees, heritage] = await Promise.all([
      this.graph.callers(id, depth, 100),
      this.graph.callees(id, depth, 100),
      this.graph.outgoing(id, ['EXTENDS', 'IMPLEMENTS']),
    ]);
    const file = symbol.path ? await this.graph.fileNode(symbol.repository_id, symbol.path) : null;
    const imports = file
      ? (await this.graph.outgoing(file.id, ['IMPORTS'])).map(
          (e) => e.target?.qualified_name ?? e.target_name,
        )
      : [];
    return {
      ...symbol,
      callers,
      callees,
      imports,
      extends: heritage
        .filter((e) => e.kind === 'EXTENDS')
        .map((e) => e.target?.qualified_name ?? e.target_name),
      implements: heritage
        .filter((e) => e.kind === 'IMPLEMENTS')
        .map((e) => e.target?.qualified_name ?? e.target_name),
      file: symbol.path,
    };
  }

  /** The seed's search_vector_db: hybrid search over the user's code chunks. */
  async searchCode(tenantId: string, userId: string, query: string, topK: number): Promise<CodeSearchHit[]> {
    const response = await this.documents.search(
      tenantId,
      {
        query,
        top_k: topK,
        search_type: 'hybrid',
        filters: { metadata: { source: 'code', user_id: userId } },
      },
      { codeOwner: userId },
    );
    const symbols = await this.graph.symbolsByDocument(response.results.map((r) => r.document_id));
    return response.results.map((result) => {
      const symbol = symbols.get(result.document_id) ?? null;
      const body = result.chunk_text.split('\n\n').slice(1).join('\n\n') || result.chunk_text;
      return {
        file: symbol?.path ?? result.document_name.replace(/^code\/[^/]+\//, '').replace(/#.*$/, ''),
        symbol: symbol && symbol.kind !== 'File' ? symbol.qualified_name : null,
        kind: symbol?.subkind ?? null,
        language: symbol?.language ?? null,
        start_line: symbol?.start_line ?? null,
        end_line: symbol?.end_line ?? null,
        signature: symbol?.signature ?? null,
        preview: body.slice(0, PREVIEW_CHARS),
        score: result.relevance_score,
        symbol_id: symbol?.id ?? null,
      };
    });
  }

  /** The seed's search_graph_db: symbols matching the query with their callers, callees and file's imports. */
  async searchGraph(
    tenantId: string,
    userId: string,
    query: string,
    limit: number,
  ): Promise<GraphSearchHit[]> {
    void tenantId;
    const symbols = await this.lookup(userId, query, limit);
    return Promise.all(
      symbols.map(async (symbol) => {
        const detail = await this.symbol(tenantId, symbol.id, 1);
        return {
          id: symbol.id,
          entity_name: symbol.qualified_name,
          entity_type: symbol.kind,
          kind: symbol.subkind,
          file: symbol.path,
          start_line: symbol.start_line,
          end_line: symbol.end_line,
          signature: symbol.signature,
          doc_comment: symbol.doc_comment,
          calls: detail.callees.map(describe),
          called_by: detail.callers.map(describe),
          imports: detail.imports,
          extends: detail.extends,
          implements: detail.implements,
        };
      }),
    );
  }

  /** Symbols (not files) of the user's repositories matching the query or, for a question, its names. */
  private async lookup(userId: string, query: string, limit: number): Promise<CodeSymbolView[]> {
    const repositories = await this.repositories.repositoryIdsOf(userId);
    const found = new Map<string, CodeSymbolView>();
    for (const candidate of symbolCandidates(query)) {
      for (const symbol of await this.graph.findSymbols(repositories, candidate, limit)) {
        if (symbol.kind !== 'File' && found.size < limit) found.set(symbol.id, symbol);
      }
    }
    return [...found.values()];
  }

  /** Graph operations for the planner: callers, callees, impact or a call path, by symbol name. */
  async graphQuery(
    tenantId: string,
    userId: string,
    operation: 'callers' | 'callees' | 'impact' | 'path',
    symbolName: string,
    options: { depth: number; limit: number; target?: string },
  ): Promise<{
    symbol: CodeSymbolView | null;
    results: Array<{ name: string; file: string | null; line: number | null; depth: number }>;
  }> {
    void tenantId;
    const [symbol] = await this.lookup(userId, symbolName, 5);
    if (!symbol) return { symbol: null, results: [] };
    const toRow = (r: RelatedSymbol) => ({
      name: r.symbol?.qualified_name ?? r.name,
      file: r.symbol?.path ?? null,
      line: r.symbol?.start_line ?? r.line,
      depth: r.depth,
    });
    switch (operation) {
      case 'callers':
        return {
          symbol,
          results: (await this.graph.callers(symbol.id, options.depth, options.limit)).map(toRow),
        };
      case 'callees':
        return {
          symbol,
          results: (await this.graph.callees(symbol.id, options.depth, options.limit)).map(toRow),
        };
      case 'impact':
        return {
          symbol,
          results: (await this.graph.impact([symbol.id], options.depth, options.limit)).map(toRow),
        };
      case 'path': {
        const [target] = await this.lookup(userId, options.target ?? '', 5);
        const path = target ? await this.graph.path(symbol.id, target.id, options.depth) : null;
        return {
          symbol,
          results: (path ?? []).map((node, index) => ({
            name: node.qualified_name,
            file: node.path,
            line: node.start_line,
            depth: index,
          })),
        };
      }
    }
  }
}
