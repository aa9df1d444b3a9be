import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SealedSecret } from './secret-cipher.util';

export interface TenantSecretRow extends SealedSecret {
  name: string;
  createdAt: Date;
  updatedAt: Date;
  createdBy: string | null;
}

interface RawRow {
  name: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
}

const toRow = (r: RawRow): TenantSecretRow => ({
  name: r.name,
  ciphertext: r.ciphertext,
  iv: r.iv,
  authTag: r.auth_tag,
  keyId: r.key_id,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  createdBy: r.created_by,
});

/** `tenant_secrets`: every statement filters by tenant. */
@Injectable()
export class TenantSecretsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async upsert(
    tenantId: string,
    name: string,
    sealed: SealedSecret,
    actor: string,
  ): Promise<TenantSecretRow> {
    const rows: RawRow[] = await this.dataSource.query(
      `INSERT INTO tenant_secrets (tenant_id, name, ciphertext, iv, auth_tag, key_id, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, name) DO UPDATE
          SET ciphertext = EXCLUDED.ciphertext, iv = EXCLUDED.iv, auth_tag = EXCLUDED.auth_tag,
              key_id = EXCLUDED.key_id, updated_at = now()
       RETURNING name, ciphertext, iv, auth_tag, key_id, created_at, updated_at, created_by`,
      [tenantId, name, sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, actor],
    );
    return toRow(rows[0]);
  }

  async find(tenantId: string, name: string): Promise<TenantSecretRow | null> {
    const rows: RawRow[] = await this.dataSource.query(
      `SELECT name, ciphertext, iv, auth_tag, key_id, created_at, updated_at, created_by
         FROM tenant_secrets WHERE tenant_id = $1 AND name = $2`,
      [tenantId, name],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  async exists(tenantId: string, name: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM tenant_secrets WHERE tenant_id = $1 AND name = $2`,
      [tenantId, name],
    );
    return rows.length > 0;
  }

  async list(tenantId: string): Promise<TenantSecretRow[]> {
    const rows: RawRow[] = await this.dataSource.query(
      `SELECT name, ''::bytea AS ciphertext, ''::bytea AS iv, ''::bytea AS auth_tag, key_id,
              created_at, updated_at, created_by
         FROM tenant_secrets WHERE tenant_id = $1 ORDER BY name`,
      [tenantId],
    );
    return rows.map(toRow);
  }

  async remove(tenantId: string, name: string): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, rowCount].
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM tenant_secrets WHERE tenant_id = $1 AND name = $2`,
      [tenantId, name],
    );
    return count > 0;
  }
}
