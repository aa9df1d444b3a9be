import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DocumentIngestionService } from '@app/documents';
import type { FileLanguage, ParsedFile, ParsedSymbol } from '../parsing/code-parser.types';
import { identifierWords, splitIdentifier } from '../search/identifier-words.util';

/** The metadata every code chunk's document carries; search filters on `source`, `user_id` and `repository_id`. */
export interface CodeChunkMetadata {
  source: 'code';
  user_id: string;
  repository_id: string;
  path: string;
  symbol: string | null;
  kind: string;
  language: FileLanguage;
  start_line: number;
  end_line: number;
}

const CHUNK_MAX_CHARS = 6000;
const CLASS_INLINE_MAX_CHARS = 3000;

export interface ChunkScope {
  tenantId: string;
  userId: string;
  repositoryId: string;
}

/** A chunk's document name: unique per repository, path and symbol (and within the 500-character limit). */
function documentName(repositoryId: string, path: string, symbol: string | null): string {
  const name = `code/${repositoryId}/${path}${symbol ? `#${symbol}` : ''}`;
  if (name.length <= 480) return name;
  return `code/${repositoryId}/${createHash('sha256').update(name).digest('hex')}`;
}

function chunkText(
  path: string,
  lines: string[],
  symbol: ParsedSymbol | null,
  children: ParsedSymbol[],
): string {
  const start = symbol ? symbol.startLine : 1;
  const end = symbol ? symbol.endLine : lines.length;
  let body = lines.slice(start - 1, end).join('\n');
  if (symbol?.kind === 'Class' && body.length > CLASS_INLINE_MAX_CHARS) {
    body = [symbol.signature, ...children.map((child) => `  ${child.signature}`)].join('\n');
  }
  if (body.length > CHUNK_MAX_CHARS) body = `${body.slice(0, CHUNK_MAX_CHARS)}\n…`;
  const name = symbol ? symbol.qualifiedName : path;
  const words = [
    ...new Set([
      ...path.split(/[/.]/).flatMap(splitIdentifier),
      ...(symbol ? splitIdentifier(symbol.name) : []),
    ]),
  ];
  const header = [
    `${path}${symbol ? ` ${name} (${symbol.subkind})` : ''}`,
    words.join(' '),
    symbol?.docComment ?? '',
    identifierWords(body).join(', '),
  ].filter(Boolean);
  return `${header.join('\n')}\n\n${body}`;
}

/**
 * Keeps a file's search chunks in the tenant's document store: one document per class and
 * function (a file without any: one for the file), so hybrid search, the search cache and the
 * embedding provider apply to code as to any document. Unchanged chunks are left alone; chunks of
 * symbols that disappeared are deleted.
 */
@Injectable()
export class CodeChunksService {
  constructor(private readonly ingestion: DocumentIngestionService) {}

  /**
   * Upserts the file's chunks; returns the document id of each symbol (by index; -1 for the file
   * chunk) and how many chunks were (re)queued for embedding.
   */
  async sync(
    scope: ChunkScope,
    path: string,
    language: FileLanguage,
    text: string,
    parsed: ParsedFile,
    previousDocuments: string[],
  ): Promise<{ documents: Map<number, string>; upserted: number }> {
    const lines = text.split('\n');
    const documents = new Map<number, string>();
    let upserted = 0;
    const targets: Array<{ index: number; symbol: ParsedSymbol | null }> =
      parsed.symbols.length > 0 ? parsed.symbols.map((symbol) => ({ index: symbol.index, symbol })) : [];
    if (targets.length === 0 && text.trim()) targets.push({ index: -1, symbol: null });
    const seenNames = new Map<string, number>();
    for (const { index, symbol } of targets) {
      let symbolName = symbol ? symbol.qualifiedName : null;
      if (symbolName) {
        const count = seenNames.get(symbolName) ?? 0;
        seenNames.set(symbolName, count + 1);
        if (count > 0) symbolName = `${symbolName}@${symbol!.startLine}`;
      }
      const metadata: CodeChunkMetadata = {
        source: 'code',
        user_id: scope.userId,
        repository_id: scope.repositoryId,
        path,
        symbol: symbol ? symbol.qualifiedName : null,
        kind: symbol ? symbol.subkind : 'file',
        language,
        start_line: symbol ? symbol.startLine : 1,
        end_line: symbol ? symbol.endLine : lines.length,
      };
      const children = symbol ? parsed.symbols.filter((s) => s.parent === symbol.index) : [];
      const result = await this.ingestion.upsertByFilename(scope.tenantId, {
        filename: documentName(scope.repositoryId, path, symbolName),
        content: chunkText(path, lines, symbol, children),
        contentType: 'text/plain',
        metadata: { ...metadata },
        userId: scope.userId,
      });
      if (result.queued) upserted++;
      documents.set(index, result.document.id);
    }
    const kept = new Set(documents.values());
    for (const id of previousDocuments) {
      if (!kept.has(id)) await this.removeQuietly(scope.tenantId, id);
    }
    return { documents, upserted };
  }

  async removeAll(tenantId: string, documentIds: string[]): Promise<void> {
    for (const id of documentIds) await this.removeQuietly(tenantId, id);
  }

  private async removeQuietly(tenantId: string, id: string): Promise<void> {
    try {
      await this.ingestion.remove(tenantId, id);
    } catch {
      // Already gone (deleted by an earlier attempt of the same diff).
    }
  }
}
