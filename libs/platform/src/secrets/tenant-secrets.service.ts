import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '../platform.config';
import { AuthRepository } from '../auth/auth.repository';
import { ErrorKind, PlatformException, PlatformExceptionCode } from '../errors/app.exception';
import { openSecret, sealSecret } from './secret-cipher.util';
import { isEnvGranted, parseSecretEnvGrants, type SecretEnvGrants } from './secret-env-grants.util';
import { SecretsKeyring } from './secrets-keyring';
import { TenantSecretsRepository } from './tenant-secrets.repository';

/** `secret:<NAME>` (the tenant's store) or `env:OPS_SECRET_<NAME>` (an environment variable granted to it). */
export const SECRET_REFERENCE = /^(?:secret:([A-Za-z][A-Za-z0-9_-]{0,99})|env:(OPS_SECRET_[A-Z0-9_]+))$/;
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,99}$/;
export const SECRET_VALUE_MAX_CHARS = 8192;

export interface TenantSecretView {
  name: string;
  created_at: string;
  updated_at: string;
  created_by: string | null;
}

const unresolvable = (ref: string, why: string) =>
  new PlatformException(
    PlatformExceptionCode.SECRET_REF_UNRESOLVABLE,
    ErrorKind.INVALID_INPUT,
    `${ref} ${why}`,
    {
      secret_ref: ref,
    },
  );

/**
 * Per-tenant secrets, sealed with the server key, and the resolution of secret references: a
 * reference resolves only in the namespace of the tenant whose tool or source uses it.
 */
@Injectable()
export class TenantSecretsService {
  private readonly grants: SecretEnvGrants;
  private readonly slugs = new Map<string, string>();

  constructor(
    private readonly repository: TenantSecretsRepository,
    private readonly keyring: SecretsKeyring,
    private readonly auth: AuthRepository,
    config: PlatformConfig,
  ) {
    this.grants = parseSecretEnvGrants(config.SECRET_ENV_GRANTS);
  }

  async put(tenantId: string, name: string, value: string, actor: string): Promise<TenantSecretView> {
    this.checkName(name);
    if (typeof value !== 'string' || value.length === 0 || value.length > SECRET_VALUE_MAX_CHARS) {
      throw new PlatformException(
        PlatformExceptionCode.VALIDATION_FAILED,
        ErrorKind.INVALID_INPUT,
        `value must be 1-${SECRET_VALUE_MAX_CHARS} characters`,
      );
    }
    const sealed = sealSecret(this.keyring.current(), aad(tenantId, name), value);
    return toView(await this.repository.upsert(tenantId, name, sealed, actor));
  }

  async list(tenantId: string): Promise<TenantSecretView[]> {
    return (await this.repository.list(tenantId)).map(toView);
  }

  async remove(tenantId: string, name: string): Promise<void> {
    if (!SECRET_NAME.test(name) || !(await this.repository.remove(tenantId, name))) throw notFound(name);
  }

  /** Publish-time check: the reference would resolve for this tenant (the value is not read). */
  async assertResolvable(tenantId: string, ref: string): Promise<void> {
    const match = SECRET_REFERENCE.exec(ref);
    if (!match) throw unresolvable(ref, 'is not secret:<NAME> or env:OPS_SECRET_<NAME>');
    if (match[1]) {
      if (!(await this.repository.exists(tenantId, match[1]))) {
        throw unresolvable(ref, 'is not a secret of this tenant (PUT /api/secrets/<NAME> creates it)');
      }
      return;
    }
    if (!(await this.envGranted(tenantId, match[2]))) {
      throw unresolvable(ref, 'is not granted to this tenant (SECRET_ENV_GRANTS)');
    }
  }

  /** The value a reference names for this tenant; throws SECRET_REF_UNRESOLVABLE naming the reference. */
  async resolve(tenantId: string, ref: string): Promise<string> {
    await this.assertResolvable(tenantId, ref);
    const match = SECRET_REFERENCE.exec(ref)!;
    if (match[1]) {
      const row = await this.repository.find(tenantId, match[1]);
      if (!row) throw unresolvable(ref, 'is not a secret of this tenant');
      try {
        return openSecret(this.keyring.current(), aad(tenantId, match[1]), row);
      } catch (error) {
        if (error instanceof PlatformException) throw error;
        throw unresolvable(ref, 'cannot be decrypted with the server key (was SECRETS_KEY changed?)');
      }
    }
    const value = process.env[match[2]];
    if (!value) throw unresolvable(ref, 'is not set on the server');
    return value;
  }

  private async envGranted(tenantId: string, name: string): Promise<boolean> {
    let slug = this.slugs.get(tenantId);
    if (slug === undefined) {
      slug = (await this.auth.findTenant(tenantId))?.slug;
      if (slug !== undefined) this.slugs.set(tenantId, slug);
    }
    return isEnvGranted(this.grants, { id: tenantId, slug }, name);
  }

  private checkName(name: string): void {
    if (!SECRET_NAME.test(name)) {
      throw new PlatformException(
        PlatformExceptionCode.VALIDATION_FAILED,
        ErrorKind.INVALID_INPUT,
        'A secret name is 1-100 letters, digits, _ or -, starting with a letter',
      );
    }
  }
}

const aad = (tenantId: string, name: string) => `${tenantId}:${name}`;

const notFound = (name: string) =>
  new PlatformException(
    PlatformExceptionCode.SECRET_NOT_FOUND,
    ErrorKind.NOT_FOUND,
    `No secret named ${name}`,
  );

function toView(row: {
  name: string;
  createdAt: Date;
  updatedAt: Date;
  createdBy: string | null;
}): TenantSecretView {
  return {
    name: row.name,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    created_by: row.createdBy,
  };
}
