import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { RepositoryView } from '../code.types';

/** A user's repositories (by name), and their listing. */
@Injectable()
export class CodeRepositoriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Finds or creates the repository and locks its row until the transaction ends. */
  async lockRepository(em: EntityManager, tenantId: string, userId: string, name: string): Promise<string> {
    const rows: Array<{ id: string }> = await em.query(
      `INSERT INTO code_repositories (tenant_id, user_id, name) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, user_id, name) DO UPDATE SET updated_at = now()
       RETURNING id`,
      [tenantId, userId, name],
    );
    return rows[0].id;
  }

  async listRepositories(userId: string | null): Promise<RepositoryView[]> {
    const rows: Array<{
      id: string;
      user_id: string;
      name: string;
      files: string;
      created_at: Date;
      updated_at: Date;
    }> = await this.dataSource.query(
      `SELECT r.id, r.user_id, r.name, r.created_at, r.updated_at,
              (SELECT count(*) FROM code_files f WHERE f.repository_id = r.id) AS files
       FROM code_repositories r WHERE ($1::text IS NULL OR r.user_id = $1) ORDER BY r.user_id, r.name`,
      [userId],
    );
    return rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      name: r.name,
      files: Number(r.files),
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    }));
  }

  async findRepository(id: string): Promise<{ id: string; userId: string; name: string } | null> {
    const rows: Array<{ id: string; user_id: string; name: string }> = await this.dataSource.query(
      `SELECT id, user_id, name FROM code_repositories WHERE id = $1`,
      [id],
    );
    return rows[0] ? { id: rows[0].id, userId: rows[0].user_id, name: rows[0].name } : null;
  }

  async repositoryIdsOf(userId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM code_repositories WHERE user_id = $1`,
      [userId],
    );
    return rows.map((r) => r.id);
  }
}
