import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { FileLanguage } from '../parsing/code-parser.types';
import type { CodeFileView } from '../code.types';

export interface StoredFileWrite {
  path: string;
  text: string | null;
  hash: string | null;
  language: FileLanguage;
}

export interface CurrentFile {
  id: string;
  path: string;
  text: string;
  contentHash: string;
  language: FileLanguage;
  indexedHash: string | null;
}

/** The current text of each file of a repository, and the hash its index was built from. */
@Injectable()
export class CodeFilesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async loadTexts(em: EntityManager, repositoryId: string, paths: string[]): Promise<Map<string, string>> {
    if (paths.length === 0) return new Map();
    const rows: Array<{ path: string; text: string }> = await em.query(
      `SELECT path, text FROM code_files WHERE repository_id = $1 AND path = ANY($2)`,
      [repositoryId, paths],
    );
    return new Map(rows.map((r) => [r.path, r.text]));
  }

  async writeFiles(em: EntityManager, tenantId: string, repositoryId: string, files: StoredFileWrite[]) {
    const deleted = files.filter((f) => f.text === null).map((f) => f.path);
    if (deleted.length)
      await em.query(`DELETE FROM code_files WHERE repository_id = $1 AND path = ANY($2)`, [
        repositoryId,
        deleted,
      ]);
    const upserts = files.filter((f) => f.text !== null);
    if (upserts.length === 0) return;
    await em.query(
      `INSERT INTO code_files (tenant_id, repository_id, path, text, content_hash, language, size)
       SELECT $1, $2, x.path, x.text, x.hash, x.language, octet_length(x.text)
       FROM jsonb_to_recordset($3::jsonb) AS x(path text, text text, hash text, language text)
       ON CONFLICT (repository_id, path) DO UPDATE
         SET text = EXCLUDED.text, content_hash = EXCLUDED.content_hash, language = EXCLUDED.language,
             size = EXCLUDED.size, updated_at = now()`,
      [tenantId, repositoryId, JSON.stringify(upserts)],
    );
  }

  async currentFile(repositoryId: string, path: string): Promise<CurrentFile | null> {
    const rows: Array<{
      id: string;
      path: string;
      text: string;
      content_hash: string;
      language: FileLanguage;
      indexed_hash: string | null;
    }> = await this.dataSource.query(
      `SELECT id, path, text, content_hash, language, indexed_hash FROM code_files
       WHERE repository_id = $1 AND path = $2`,
      [repositoryId, path],
    );
    const row = rows[0];
    return row
      ? {
          id: row.id,
          path: row.path,
          text: row.text,
          contentHash: row.content_hash,
          language: row.language,
          indexedHash: row.indexed_hash,
        }
      : null;
  }

  async markIndexed(repositoryId: string, path: string, hash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE code_files SET indexed_hash = $3 WHERE repository_id = $1 AND path = $2 AND content_hash = $3`,
      [repositoryId, path, hash],
    );
  }

  /** Files under a path prefix (a directory, or one file's exact path with its text). */
  async listFiles(repositoryId: string, prefix: string | null, limit: number): Promise<CodeFileView[]> {
    const rows: Array<{
      path: string;
      language: FileLanguage;
      size: number;
      content_hash: string;
      indexed_hash: string | null;
      updated_at: Date;
      text: string | null;
    }> = await this.dataSource.query(
      `SELECT path, language, size, content_hash, indexed_hash, updated_at,
              CASE WHEN path = $2 THEN text END AS text
       FROM code_files WHERE repository_id = $1
         AND ($2::text IS NULL OR path = $2 OR starts_with(path, rtrim($2, '/') || '/'))
       ORDER BY path LIMIT $3`,
      [repositoryId, prefix, limit],
    );
    return rows.map((r) => ({
      path: r.path,
      language: r.language,
      size: r.size,
      content_hash: r.content_hash,
      indexed: r.indexed_hash === r.content_hash,
      updated_at: r.updated_at.toISOString(),
      ...(r.text !== null ? { text: r.text } : {}),
    }));
  }
}
