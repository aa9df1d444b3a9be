import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError, SelectQueryBuilder } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { AssetType } from '../types/asset-type.registry';
import type { AssetListQuery } from '../asset.types';
import { AssetEntity } from './asset.entity';
import { AssetVersionEntity } from './asset-version.entity';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

export type NewAsset = Omit<
  AssetEntity,
  'assetId' | 'createdAt' | 'updatedAt' | 'tenant' | 'version' | 'publishedVersion' | 'revision'
>;

export type NewVersion = Pick<
  AssetVersionEntity,
  'snapshot' | 'publishedBy' | 'rollbackFromVersion' | 'note' | 'contractCheck' | 'dryRun'
>;

export class UniqueViolation extends Error {}

/** A row the caller read is no longer the row in the database (someone else wrote it meanwhile). */
export class StaleRevision extends Error {}

/** A published snapshot joined with its asset row. */
export interface PublishedRow {
  asset: AssetEntity;
  version: AssetVersionEntity;
}

@Injectable()
export class AssetRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(values: NewAsset): Promise<AssetEntity> {
    const repo = this.dataSource.getRepository(AssetEntity);
    try {
      return await repo.save(repo.create(values));
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23505') {
        throw new UniqueViolation(error.message);
      }
      throw error;
    }
  }

  findById(tenantId: string, assetId: string): Promise<AssetEntity | null> {
    if (!UUID.test(assetId)) return Promise.resolve(null);
    return this.dataSource.getRepository(AssetEntity).findOne({ where: { tenantId, assetId } });
  }

  findByName(tenantId: string, assetType: AssetType, name: string): Promise<AssetEntity | null> {
    return this.dataSource.getRepository(AssetEntity).findOne({ where: { tenantId, assetType, name } });
  }

  async list(tenantId: string, query: AssetListQuery) {
    const qb = this.dataSource
      .getRepository(AssetEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId', { tenantId });
    if (query.status) qb.andWhere('a.status = :status', { status: query.status });
    if (query.tag) qb.andWhere('a.tags @> CAST(:tag AS jsonb)', { tag: JSON.stringify([query.tag]) });
    this.filter(qb, query);
    const [items, total] = await qb.getManyAndCount();
    return { items, total };
  }

  /** Like `list`, over the versions now serving (what non-admins may see); tags are the published ones. */
  async listServing(
    tenantId: string,
    query: AssetListQuery,
  ): Promise<{ items: PublishedRow[]; total: number }> {
    const qb = this.publishedQuery().andWhere('a.tenant_id = :tenantId', { tenantId });
    if (query.tag) {
      qb.andWhere(`v.snapshot -> 'tags' @> CAST(:tag AS jsonb)`, { tag: JSON.stringify([query.tag]) });
    }
    this.filter(qb, query);
    const [rows, total] = await qb.getManyAndCount();
    return { items: this.toPublishedRows(rows), total };
  }

  private filter(qb: SelectQueryBuilder<AssetEntity>, query: AssetListQuery): void {
    if (query.assetType) qb.andWhere('a.asset_type = :assetType', { assetType: query.assetType });
    if (query.name) qb.andWhere('a.name = :name', { name: query.name });
    if (query.search) {
      qb.andWhere('(a.name ILIKE :search OR a.description ILIKE :search)', {
        search: `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      });
    }
    qb.orderBy('a.assetType', 'ASC').addOrderBy('a.name', 'ASC').skip(query.offset).take(query.limit);
  }

  /** Writes a draft change if the row is still at `revision`; returns the new row. */
  async updateDraft(
    tenantId: string,
    assetId: string,
    revision: number,
    changes: Partial<AssetEntity>,
  ): Promise<AssetEntity> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(AssetEntity)
      .set({ ...changes, revision: () => 'revision + 1' })
      .where('tenant_id = :tenantId AND asset_id = :assetId AND revision = :revision', {
        tenantId,
        assetId,
        revision,
      })
      .execute();
    if (!result.affected) throw new StaleRevision(assetId);
    return (await this.findById(tenantId, assetId))!;
  }

  /**
   * Appends the next version to the history and points the asset at it, atomically. `changes` are
   * applied to the working copy in the same transaction.
   */
  publish(
    tenantId: string,
    assetId: string,
    revision: number,
    version: NewVersion,
    changes: (next: number) => Partial<AssetEntity>,
  ): Promise<{ asset: AssetEntity; version: AssetVersionEntity }> {
    return this.dataSource.transaction(async (manager) => {
      const asset = await this.lock(manager, tenantId, assetId, revision);
      const next = asset.version + 1;
      const history = manager.getRepository(AssetVersionEntity);
      const saved = await history.save(history.create({ ...version, assetId, tenantId, version: next }));
      await manager.getRepository(AssetEntity).update({ tenantId, assetId }, {
        ...changes(next),
        version: next,
        revision: asset.revision + 1,
      } as QueryDeepPartialEntity<AssetEntity>);
      const updated = await manager.getRepository(AssetEntity).findOneByOrFail({ tenantId, assetId });
      return { asset: updated, version: saved };
    });
  }

  async archive(tenantId: string, assetId: string, revision: number, actor: string): Promise<AssetEntity> {
    return this.updateDraft(tenantId, assetId, revision, {
      status: 'archived',
      publishedVersion: null,
      archivedAt: new Date(),
      archivedBy: actor,
      updatedBy: actor,
    });
  }

  listVersions(tenantId: string, assetId: string): Promise<AssetVersionEntity[]> {
    return this.dataSource
      .getRepository(AssetVersionEntity)
      .find({ where: { tenantId, assetId }, order: { version: 'DESC' } });
  }

  findVersion(tenantId: string, assetId: string, version: number): Promise<AssetVersionEntity | null> {
    return this.dataSource
      .getRepository(AssetVersionEntity)
      .findOne({ where: { tenantId, assetId, version } });
  }

  /** Type and name of every asset of a tenant, archived ones included (for dropping cached lookups). */
  async namesOf(tenantId: string): Promise<Array<{ assetType: AssetType; name: string }>> {
    const rows = await this.dataSource.query<Array<{ asset_type: AssetType; name: string }>>(
      `SELECT asset_type, name FROM tb_asset_registry WHERE tenant_id = $1`,
      [tenantId],
    );
    return rows.map((row) => ({ assetType: row.asset_type, name: row.name }));
  }

  async findPublished(tenantId: string, assetType: AssetType, name: string): Promise<PublishedRow | null> {
    const rows = await this.publishedQuery()
      .andWhere('a.tenant_id = :tenantId AND a.asset_type = :assetType AND a.name = :name', {
        tenantId,
        assetType,
        name,
      })
      .getMany();
    return rows.length > 0 ? this.toPublishedRows(rows)[0] : null;
  }

  /** Published assets of one type for one tenant, or for every tenant when `tenantId` is null. */
  async listPublished(tenantId: string | null, assetType: AssetType): Promise<PublishedRow[]> {
    const qb = this.publishedQuery().andWhere('a.asset_type = :assetType', { assetType });
    if (tenantId) qb.andWhere('a.tenant_id = :tenantId', { tenantId });
    return this.toPublishedRows(await qb.orderBy('a.tenantId').addOrderBy('a.name').getMany());
  }

  private publishedQuery() {
    return this.dataSource
      .getRepository(AssetEntity)
      .createQueryBuilder('a')
      .innerJoinAndMapOne(
        'a.servingVersion',
        AssetVersionEntity,
        'v',
        'v.asset_id = a.asset_id AND v.version = a.published_version',
      )
      .where('a.published_version IS NOT NULL');
  }

  private toPublishedRows(rows: AssetEntity[]): PublishedRow[] {
    return rows.map((asset) => {
      const serving = asset as AssetEntity & { servingVersion: AssetVersionEntity };
      const { servingVersion, ...rest } = serving;
      return { asset: rest, version: servingVersion };
    });
  }

  private async lock(
    manager: EntityManager,
    tenantId: string,
    assetId: string,
    revision: number,
  ): Promise<AssetEntity> {
    const asset = await manager
      .getRepository(AssetEntity)
      .createQueryBuilder('a')
      .setLock('pessimistic_write')
      .where('a.tenant_id = :tenantId AND a.asset_id = :assetId', { tenantId, assetId })
      .getOne();
    if (!asset || asset.revision !== revision) throw new StaleRevision(assetId);
    return asset;
  }
}
