import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { exceededQueueLimit } from '@app/platform';
import { CodeException, CodeExceptionCode } from '../code.exception';
import type { DiffApplyRequest, DiffView } from '../code.types';
import { languageOf } from '../parsing/code-parser';
import { CodeDiffWorker } from './code-diff.worker';
import { CodeFilesRepository } from '../store/code-files.repository';
import { CodeRepositoriesRepository } from '../store/code-repositories.repository';
import { CodeDiffsRepository } from './code-diffs.repository';
import {
  checkRequestSize,
  DiffLimits,
  parseUnifiedWithin,
  requestPaths,
  resolveChanges,
  unifiedPaths,
} from './diff-resolution.util';
import { CodeConfig } from '../code.config';

export const DEFAULT_REPOSITORY = 'default';
const WAIT_POLL_MS = 100;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Applies a diff request: under the repository's row lock, the request's texts are resolved
 * against the stored ones (whole `files` texts or a `unified` patch), written, and the diff queued
 * for indexing, all in one transaction; only then is it acknowledged. Indexing (graph and chunks)
 * happens in the diff worker.
 */
@Injectable()
export class DiffApplicationService {
  constructor(
    private readonly config: CodeConfig,
    private readonly diffs: CodeDiffsRepository,
    private readonly fileStore: CodeFilesRepository,
    private readonly repositories: CodeRepositoriesRepository,
    private readonly worker: CodeDiffWorker,
  ) {}

  private get limits(): DiffLimits {
    return {
      maxFileBytes: this.config.CODE_MAX_FILE_BYTES,
      maxRequestBytes: this.config.CODE_MAX_REQUEST_BYTES,
      maxFiles: this.config.CODE_MAX_FILES_PER_DIFF,
    };
  }

  async apply(tenantId: string, request: DiffApplyRequest): Promise<DiffView> {
    const hasFiles = Array.isArray(request.files);
    const hasUnified = typeof request.unified === 'string';
    if (hasFiles === hasUnified)
      throw CodeException.invalid('Send either "files" or "unified" (exactly one of them).');
    const limits = this.limits;
    checkRequestSize(request.files, request.unified, limits);
    const patches = hasUnified ? parseUnifiedWithin(request.unified!, limits) : undefined;
    const paths = patches ? unifiedPaths(patches) : requestPaths(request.files!);
    const repository = request.repository?.trim() || DEFAULT_REPOSITORY;
    const requestHash = sha256(
      JSON.stringify({ files: request.files ?? null, unified: request.unified ?? null }),
    );
    const diffId = await this.diffs.transaction(async (em) => {
      const repositoryId = await this.repositories.lockRepository(em, tenantId, request.userId, repository);
      const stored = await this.fileStore.loadTexts(em, repositoryId, paths);
      const resolved = resolveChanges({ files: request.files, patches }, stored, limits);
      if (resolved.length > 0) await this.checkQueueRoom(em, tenantId, resolved.length);
      await this.fileStore.writeFiles(
        em,
        tenantId,
        repositoryId,
        resolved.map((file) => ({
          path: file.path,
          text: file.text,
          hash: file.text === null ? null : sha256(file.text),
          language: languageOf(file.path),
        })),
      );
      return this.diffs.insertDiff(em, {
        tenantId,
        repositoryId,
        userId: request.userId,
        commit: request.commit ?? null,
        requestHash,
        paths: resolved.map((file) => file.path),
        maxAttempts: this.config.CODE_DIFF_MAX_ATTEMPTS,
        done: resolved.length === 0,
      });
    });
    // Read before waking the worker: the 202 says what was stored (queued), not how far a fast worker got.
    const stored = (await this.diffs.findDiff(diffId))!;
    this.worker.wake();
    return stored;
  }

  /** Refuses (429) a diff that would take the tenant's queued work past its limits. */
  private async checkQueueRoom(em: EntityManager, tenantId: string, files: number): Promise<void> {
    const queued = await this.diffs.lockQueuedWork(em, tenantId);
    const exceeded = exceededQueueLimit([
      {
        key: 'CODE_MAX_QUEUED_DIFFS_PER_TENANT',
        limit: this.config.CODE_MAX_QUEUED_DIFFS_PER_TENANT,
        queued: queued.diffs,
        adding: 1,
      },
      {
        key: 'CODE_MAX_QUEUED_FILES_PER_TENANT',
        limit: this.config.CODE_MAX_QUEUED_FILES_PER_TENANT,
        queued: queued.files,
        adding: files,
      },
    ]);
    if (exceeded) throw CodeException.queueFull(exceeded);
  }

  async get(tenantId: string, id: string): Promise<DiffView> {
    void tenantId;
    const diff = await this.diffs.findDiff(id);
    if (!diff) throw CodeException.notFound(CodeExceptionCode.DIFF_NOT_FOUND, 'Diff', id);
    return diff;
  }

  /**
   * Waits until the diff is indexed (or failed) or the timeout passes; where no background worker
   * runs, indexes the queue in this call.
   */
  async waitFor(tenantId: string, id: string, timeoutMs: number): Promise<DiffView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const diff = await this.get(tenantId, id);
      if (diff.status === 'done' || diff.status === 'failed' || Date.now() >= deadline) return diff;
      if (!this.worker.autoStarts && (await this.worker.drain()) > 0) continue;
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  }

  /** Queues the files left unindexed for longer than CODE_DIFF_RETRY_SECONDS (recovery). */
  recoverUnindexed(): Promise<number> {
    return this.worker.recover();
  }

  /** Indexes queued diffs in this process (CLI, tests, benchmarks). */
  processQueue(): Promise<number> {
    return this.worker.drain();
  }
}
