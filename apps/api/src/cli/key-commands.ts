import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiKeyView, AuthService, ROLES, Role } from '@app/platform';
import { openCliApp } from './cli-app';
import { ParsedArgs, serverUrl, stringFlag } from './cli-args';
import { fetchJson } from './cli-http';

export interface KeyClient {
  create(
    tenant: string | undefined,
    input: { name: string; role: Role; user_id?: string },
  ): Promise<{ key: ApiKeyView; secret: string }>;
  list(tenant: string | undefined): Promise<ApiKeyView[]>;
  revoke(tenant: string | undefined, id: string): Promise<ApiKeyView>;
  close(): Promise<void>;
}

/** Talks to a running server over HTTP with an admin key. */
class HttpKeyClient implements KeyClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  private async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    return fetchJson<T>(method, new URL(route, this.baseUrl), {
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private keysRoute(tenant: string | undefined): string {
    return tenant ? `/api/tenants/${encodeURIComponent(tenant)}/keys` : '/api/keys';
  }

  create(tenant: string | undefined, input: { name: string; role: Role; user_id?: string }) {
    return this.call<{ key: ApiKeyView; secret: string }>('POST', this.keysRoute(tenant), input);
  }

  async list(tenant: string | undefined) {
    return (await this.call<{ keys: ApiKeyView[] }>('GET', this.keysRoute(tenant))).keys;
  }

  revoke(tenant: string | undefined, id: string) {
    return this.call<ApiKeyView>('DELETE', `${this.keysRoute(tenant)}/${encodeURIComponent(id)}`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Opens the database directly (a stopped server's DATA_DIR, or DATABASE_URL). */
class DirectKeyClient implements KeyClient {
  private constructor(
    private readonly close_: () => Promise<void>,
    private readonly auth: AuthService,
  ) {}

  static async open(args: ParsedArgs): Promise<DirectKeyClient> {
    const app = await openCliApp(args);
    return new DirectKeyClient(() => app.close(), app.get(AuthService));
  }

  async create(tenant: string | undefined, input: { name: string; role: Role; user_id?: string }) {
    return this.auth.createKey(
      tenant ?? 'default',
      { name: input.name, role: input.role, userId: input.user_id },
      undefined,
    );
  }

  list(tenant: string | undefined) {
    return this.auth.listKeys(tenant);
  }

  async revoke(tenant: string | undefined, id: string) {
    return this.auth.revokeKey(id, tenant ? (await this.auth.getTenant(tenant)).id : undefined);
  }

  close(): Promise<void> {
    return this.close_();
  }
}

export function resolveApiKey(args: ParsedArgs): string {
  const explicit = stringFlag(args, 'api-key') ?? process.env.OPS_API_KEY ?? process.env.OPS_KEY;
  if (explicit) return explicit;
  const file = path.join(path.resolve(process.env.DATA_DIR ?? './data'), 'admin-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('No admin key: pass --api-key, set OPS_API_KEY, or run where DATA_DIR/admin-key exists.');
}

function printKeys(keys: ApiKeyView[]): void {
  const rows = keys.map((k) =>
    [k.id, k.tenant_slug, k.role, k.prefix, k.name, k.revoked_at ? `revoked ${k.revoked_at}` : 'active'].join(
      '  ',
    ),
  );
  process.stdout.write(`${rows.join('\n')}${rows.length ? '\n' : '(no keys)\n'}`);
}

export async function runKeysCommand(args: ParsedArgs): Promise<void> {
  const [, action, target] = args.positional;
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const url = serverUrl(args);
  const client: KeyClient = url
    ? new HttpKeyClient(url, resolveApiKey(args))
    : await DirectKeyClient.open(args);
  const tenant = stringFlag(args, 'tenant');
  try {
    switch (action) {
      case 'create': {
        const role = (stringFlag(args, 'role') ?? 'reader') as Role;
        if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
        const created = await client.create(tenant, {
          name: stringFlag(args, 'name') ?? `${role} key`,
          role,
          user_id: stringFlag(args, 'user'),
        });
        process.stderr.write(
          `created key ${created.key.id} (${created.key.role}) in tenant ${created.key.tenant_slug}; the secret is shown once:\n`,
        );
        process.stdout.write(`${created.secret}\n`);
        break;
      }
      case 'list':
        printKeys(await client.list(tenant));
        break;
      case 'revoke': {
        if (!target) throw new Error('usage: keys revoke <key-id> [--tenant T]');
        const revoked = await client.revoke(tenant, target);
        process.stdout.write(`revoked ${revoked.id} at ${revoked.revoked_at}\n`);
        break;
      }
      default:
        throw new Error(
          'usage: keys create|list|revoke [--tenant T] [--role R] [--name N] [--user U] [--url URL (or OPS_URL) | --data-dir DIR]',
        );
    }
  } finally {
    await client.close();
  }
}
