import { Injectable, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { PlatformConfig } from '../platform.config';
import { retryReadOnce } from '../database/database-errors';
import { runAsSystem, runAsTenant } from '../database/database-scope';
import { AppException, ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { ApiKeyEntity } from './api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.util';
import { AuthRepository } from './auth.repository';
import { Principal, Role } from './principal';
import { TenantEntity } from './tenant.entity';

export const DEFAULT_TENANT_SLUG = 'default';
const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKeyView {
  id: string;
  tenant_id: string;
  tenant_slug: string;
  name: string;
  prefix: string;
  role: Role;
  user_id: string;
  is_system_admin: boolean;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface TenantView {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

export interface CreateKeyInput {
  name: string;
  role: Role;
  userId?: string;
  expiresAt?: Date;
}

export function toApiKeyView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    tenant_id: key.tenantId,
    tenant_slug: key.tenant?.slug ?? '',
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    user_id: key.userId,
    is_system_admin: key.isSystemAdmin,
    created_by: key.createdBy,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

export function toTenantView(tenant: TenantEntity): TenantView {
  return { id: tenant.id, slug: tenant.slug, name: tenant.name, created_at: tenant.createdAt.toISOString() };
}

function unauthenticated(message: string): AppException {
  return new PlatformException(PlatformExceptionCode.UNAUTHENTICATED, ErrorKind.UNAUTHENTICATED, message);
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23505';
}

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly repository: AuthRepository,
    private readonly config: PlatformConfig,
  ) {}

  async authenticate(rawKey: string | undefined): Promise<Principal> {
    if (!rawKey)
      throw unauthenticated('An API key is required: send "Authorization: Bearer <key>" or "X-Api-Key".');
    // The tenant is not known before the key is: the lookup by hash reads across tenants. Every request starts
    // with this read, before any interceptor could retry it: retry it here.
    const key = await retryReadOnce(() =>
      runAsSystem('api key lookup', () => this.repository.findKeyByHash(hashApiKey(rawKey)), { quiet: true }),
    );
    const now = new Date();
    if (!key || !key.tenant) throw unauthenticated('The API key is not valid.');
    if (key.revokedAt) throw unauthenticated('The API key has been revoked.');
    if (key.expiresAt && key.expiresAt <= now) throw unauthenticated('The API key has expired.');
    this.touch(key.id, key.tenantId, now);
    return {
      tenantId: key.tenantId,
      tenantSlug: key.tenant.slug,
      userId: key.userId,
      role: key.role,
      keyId: key.id,
      isSystemAdmin: key.isSystemAdmin,
    };
  }

  async createTenant(slug: string, name: string, actor: Principal | undefined) {
    const secret = generateApiKey();
    try {
      const { tenant, key } = await this.repository.createTenantWithKey(
        { slug, name },
        this.newKey(secret, { name: 'initial admin key', role: 'admin' }, actor, false),
      );
      key.tenant = tenant;
      return { tenant: toTenantView(tenant), key: toApiKeyView(key), secret };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new PlatformException(
          PlatformExceptionCode.TENANT_EXISTS,
          ErrorKind.CONFLICT,
          `Tenant "${slug}" already exists.`,
        );
      }
      throw error;
    }
  }

  async listTenants(): Promise<TenantView[]> {
    return (await this.repository.listTenants()).map(toTenantView);
  }

  async getTenant(idOrSlug: string): Promise<TenantEntity> {
    const tenant = await this.repository.findTenant(idOrSlug);
    if (!tenant) {
      throw new PlatformException(
        PlatformExceptionCode.TENANT_NOT_FOUND,
        ErrorKind.NOT_FOUND,
        `Tenant "${idOrSlug}" not found.`,
      );
    }
    return tenant;
  }

  async createKey(tenantIdOrSlug: string, input: CreateKeyInput, actor: Principal | undefined) {
    const tenant = await this.getTenant(tenantIdOrSlug);
    const secret = generateApiKey();
    const limit = this.config.API_KEYS_MAX_PER_TENANT;
    const created = await this.repository.createKeyWithin(
      { ...this.newKey(secret, input, actor, false), tenantId: tenant.id },
      limit,
      new Date(),
    );
    if (!created.key) {
      throw new PlatformException(
        PlatformExceptionCode.API_KEY_LIMIT_REACHED,
        ErrorKind.CONFLICT,
        `Tenant "${tenant.slug}" has ${created.active} active API keys, its limit (${limit}); revoke unused ones first.`,
        { limit, active: created.active },
      );
    }
    const { key } = created;
    key.tenant = tenant;
    return { key: toApiKeyView(key), secret };
  }

  async listKeys(tenantIdOrSlug: string | undefined): Promise<ApiKeyView[]> {
    const tenantId = tenantIdOrSlug ? (await this.getTenant(tenantIdOrSlug)).id : undefined;
    return (await this.repository.listKeys(tenantId)).map(toApiKeyView);
  }

  /** Revokes a key; with a tenant given, only a key of that tenant (another tenant's key is "not found"). */
  async revokeKey(id: string, tenantId: string | undefined): Promise<ApiKeyView> {
    const key = /^[\da-f-]{36}$/i.test(id) ? await this.repository.revokeKey(id, tenantId, new Date()) : null;
    if (!key)
      throw new PlatformException(
        PlatformExceptionCode.API_KEY_NOT_FOUND,
        ErrorKind.NOT_FOUND,
        `API key ${id} not found.`,
      );
    return toApiKeyView(key);
  }

  /**
   * First start: with no key at all, creates the default tenant and a system admin key. Returns the
   * secret when one was generated (it is shown once); undefined when keys already existed or the
   * operator supplied ADMIN_API_KEY.
   */
  async bootstrapFirstAdmin(
    options: { canHandOver: boolean } = { canHandOver: true },
  ): Promise<{ secret?: string; created: boolean }> {
    const supplied = this.config.ADMIN_API_KEY;
    const secret = supplied ?? generateApiKey();
    const created = await runAsSystem('bootstrap admin key', () =>
      this.repository.whenNoKeys(async (manager) => {
        // A generated key reaches the operator only through the key file; without it nobody could ever log in.
        if (!supplied && !options.canHandOver) {
          throw new PlatformException(
            PlatformExceptionCode.BOOTSTRAP_KEY_UNDELIVERABLE,
            ErrorKind.INVALID_INPUT,
            'First start needs a way to hand over the admin key: set ADMIN_API_KEY, or allow WRITE_ADMIN_KEY_FILE.',
          );
        }
        const tenant = await this.repository.ensureTenant(manager, DEFAULT_TENANT_SLUG, 'Default tenant');
        await this.repository.insertKey(manager, {
          ...this.newKey(
            secret,
            { name: 'bootstrap admin key', role: 'admin', userId: 'admin' },
            undefined,
            true,
          ),
          tenantId: tenant.id,
        });
        return true;
      }),
    );
    if (!created) return { created: false };
    this.logger.log({
      msg: 'created the bootstrap admin key',
      tenant: DEFAULT_TENANT_SLUG,
      prefix: displayPrefix(secret),
    });
    return { created: true, secret: supplied ? undefined : secret };
  }

  private newKey(
    secret: string,
    input: CreateKeyInput,
    actor: Principal | undefined,
    isSystemAdmin: boolean,
  ) {
    return {
      name: input.name,
      prefix: displayPrefix(secret),
      keyHash: hashApiKey(secret),
      role: input.role,
      isSystemAdmin,
      userId: input.userId ?? `key:${displayPrefix(secret)}`,
      createdBy: actor?.userId ?? null,
      expiresAt: input.expiresAt ?? null,
    };
  }

  private touch(id: string, tenantId: string, now: Date): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(id, now.getTime());
    runAsTenant(tenantId, () => this.repository.touchKey(id, now)).catch((error: Error) =>
      this.logger.warn({ msg: 'could not record key use', error: error.message }),
    );
  }
}
