import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { TenantEntity } from './tenant.entity';

const BOOTSTRAP_LOCK_KEY = 7_316_402_912;

export type NewApiKey = Pick<
  ApiKeyEntity,
  'tenantId' | 'name' | 'prefix' | 'keyHash' | 'role' | 'isSystemAdmin' | 'userId'
> &
  Partial<Pick<ApiKeyEntity, 'createdBy' | 'expiresAt'>>;

@Injectable()
export class AuthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One round trip on every request: `findOne` with a relation makes TypeORM read the ids first
   * (SELECT DISTINCT ... LIMIT 1) and then the rows, two round trips for a unique key.
   */
  findKeyByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.dataSource
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('key')
      .innerJoinAndSelect('key.tenant', 'tenant')
      .where('key.keyHash = :keyHash', { keyHash })
      .getOne();
  }

  async touchKey(id: string, at: Date): Promise<void> {
    await this.dataSource.getRepository(ApiKeyEntity).update({ id }, { lastUsedAt: at });
  }

  findTenant(idOrSlug: string): Promise<TenantEntity | null> {
    const repo = this.dataSource.getRepository(TenantEntity);
    return /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i.test(idOrSlug)
      ? repo.findOne({ where: { id: idOrSlug } })
      : repo.findOne({ where: { slug: idOrSlug } });
  }

  listTenants(): Promise<TenantEntity[]> {
    return this.dataSource.getRepository(TenantEntity).find({ order: { createdAt: 'ASC' } });
  }

  listKeys(tenantId: string | undefined): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({
      where: tenantId ? { tenantId } : {},
      relations: { tenant: true },
      order: { createdAt: 'ASC' },
    });
  }

  async revokeKey(id: string, tenantId: string | undefined, at: Date): Promise<ApiKeyEntity | null> {
    const repo = this.dataSource.getRepository(ApiKeyEntity);
    const key = await repo.findOne({
      where: tenantId ? { id, tenantId } : { id },
      relations: { tenant: true },
    });
    if (!key) return null;
    if (!key.revokedAt) {
      await repo.update({ id, revokedAt: IsNull() }, { revokedAt: at });
      key.revokedAt = at;
    }
    return key;
  }

  /** Creates a tenant and its first key atomically. */
  createTenantWithKey(tenant: Pick<TenantEntity, 'slug' | 'name'>, key: Omit<NewApiKey, 'tenantId'>) {
    return this.dataSource.transaction(async (manager) => {
      const saved = await manager.getRepository(TenantEntity).save(manager.create(TenantEntity, tenant));
      const savedKey = await this.insertKey(manager, { ...key, tenantId: saved.id });
      return { tenant: saved, key: savedKey };
    });
  }

  /**
   * Inserts the key unless its tenant already holds `maxActive` active (unrevoked, unexpired) keys; then
   * null and the count. Serialised per tenant, so concurrent creations cannot both take the last place.
   */
  createKeyWithin(
    key: NewApiKey,
    maxActive: number,
    now: Date,
  ): Promise<{ key: ApiKeyEntity } | { key: null; active: number }> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('api-keys:' || $1, 0))`, [
        key.tenantId,
      ]);
      const active = await manager
        .getRepository(ApiKeyEntity)
        .createQueryBuilder('k')
        .where('k.tenantId = :tenantId', { tenantId: key.tenantId })
        .andWhere('k.revokedAt IS NULL')
        .andWhere('(k.expiresAt IS NULL OR k.expiresAt > :now)', { now })
        .getCount();
      if (active >= maxActive) return { key: null, active };
      return { key: await this.insertKey(manager, key) };
    });
  }

  /**
   * Runs `work` only if no API key exists yet, serialised across processes sharing the database,
   * so concurrent first boots create exactly one bootstrap key.
   */
  async whenNoKeys<T>(work: (manager: EntityManager) => Promise<T>): Promise<T | undefined> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
      const existing = await manager.getRepository(ApiKeyEntity).count();
      return existing > 0 ? undefined : work(manager);
    });
  }

  async ensureTenant(manager: EntityManager, slug: string, name: string): Promise<TenantEntity> {
    const repo = manager.getRepository(TenantEntity);
    return (await repo.findOne({ where: { slug } })) ?? repo.save(repo.create({ slug, name }));
  }

  async insertKey(manager: EntityManager, key: NewApiKey): Promise<ApiKeyEntity> {
    const repo = manager.getRepository(ApiKeyEntity);
    return repo.save(repo.create(key));
  }
}
