import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ChangeDomain } from './app-events';

export type TenantGenerations = Record<ChangeDomain, number>;

/** The per-tenant change generations (bumped by triggers, see CreateTenantChangeGenerations). */
@Injectable()
export class ChangeGenerationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every visible tenant's generations (all of them under runAsSystem). */
  async readAll(): Promise<Map<string, TenantGenerations>> {
    const rows = await this.dataSource.query<
      Array<{ tenant_id: string; assets: string; documents: string; api_keys: string }>
    >(`SELECT tenant_id, assets, documents, api_keys FROM tenant_change_generations`);
    return new Map(
      rows.map((row) => [
        row.tenant_id,
        { assets: Number(row.assets), documents: Number(row.documents), api_keys: Number(row.api_keys) },
      ]),
    );
  }
}
