import { Injectable } from '@nestjs/common';
import type { ClaimedDiff } from '../diff/code-diffs.repository';
import { CodeFilesRepository } from '../store/code-files.repository';
import { CodeGraphStore } from '../graph/code-graph.store';
import { CodeParser } from '../parsing/code-parser';
import type { DiffApplyResult, FailedFile } from '../code.types';
import { CodeChunksService } from './code-chunks.service';

/** Thrown between files when the worker lost its lease: another worker owns the diff now. */
export class DiffLeaseLostError extends Error {
  constructor(readonly diffId: string) {
    super(`lost the lease on diff ${diffId}`);
  }
}

/**
 * Brings the graph and the search chunks of a diff's files up to their current stored text. Each
 * file is indexed from the text stored now (not the text of the diff), and a file whose indexed
 * hash equals its content hash is skipped, so redoing a diff after a crash, replaying a diff or
 * indexing diffs late all end in the same state.
 */
@Injectable()
export class CodeIndexerService {
  private readonly parser = new CodeParser();

  constructor(
    private readonly fileStore: CodeFilesRepository,
    private readonly graph: CodeGraphStore,
    private readonly chunks: CodeChunksService,
  ) {}

  async indexDiff(diff: ClaimedDiff, assertHeld: () => void = () => undefined): Promise<DiffApplyResult> {
    const result: DiffApplyResult = {
      files_processed: 0,
      embeddings_upserted: 0,
      graph_nodes_updated: 0,
      failed_files: [],
    };
    for (const path of diff.paths) {
      assertHeld();
      try {
        const counts = await this.indexFile(diff, path);
        result.files_processed++;
        result.embeddings_upserted += counts.embeddings;
        result.graph_nodes_updated += counts.nodes;
      } catch (error) {
        if (error instanceof DiffLeaseLostError) throw error;
        result.failed_files.push({ path, error: (error as Error).message } satisfies FailedFile);
      }
    }
    return result;
  }

  private async indexFile(diff: ClaimedDiff, path: string): Promise<{ nodes: number; embeddings: number }> {
    const file = await this.fileStore.currentFile(diff.repositoryId, path);
    const previousDocuments = await this.graph.documentsOfFile(diff.repositoryId, path);
    if (!file) {
      const removed = await this.graph.deleteFile(diff.repositoryId, path);
      await this.chunks.removeAll(diff.tenantId, previousDocuments);
      return { nodes: removed, embeddings: 0 };
    }
    if (file.indexedHash === file.contentHash) return { nodes: 0, embeddings: 0 };
    const parsed = await this.parser.parse(path, file.text);
    const written = await this.graph.replaceFile({
      tenantId: diff.tenantId,
      repositoryId: diff.repositoryId,
      path,
      language: file.language,
      parsed,
      lineCount: file.text.split('\n').length,
    });
    const { documents, upserted } = await this.chunks.sync(
      { tenantId: diff.tenantId, userId: diff.userId, repositoryId: diff.repositoryId },
      path,
      file.language,
      file.text,
      parsed,
      previousDocuments,
    );
    await this.graph.setDocuments(
      [...documents].map(([index, documentId]) => ({
        nodeId: index === -1 ? written.fileNodeId : written.symbolIds[index],
        documentId,
      })),
    );
    await this.fileStore.markIndexed(diff.repositoryId, path, file.contentHash);
    return { nodes: written.nodes, embeddings: upserted };
  }
}
