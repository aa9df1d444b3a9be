import { Injectable, Logger } from '@nestjs/common';
import net from 'node:net';
import { Client, type ClientConfig } from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { EgressPolicy, vetHost } from '@app/platform';
import { AssetRegistryException, AssetRegistryExceptionCode as Code } from '../asset-registry.exception';
import { AssetRegistryConfig } from '../asset-registry.config';

/** One answer for every way a connection can fail, so the sync cannot be used to probe a network. */
export const SOURCE_UNREACHABLE_MESSAGE = 'Could not connect to the source database.';

const DEFAULT_PORT = 5432;
const CONNECT_TIMEOUT_MS = 10_000;

/** Where and as whom to connect, with the secrets already resolved. */
export interface SourceTarget {
  url?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  ssl?: boolean;
}

/**
 * Connects to a tenant's `source` database through the same egress policy as http tools: the host
 * is resolved once, every address must be public unless the operator allowlisted the host
 * (`SOURCE_HOST_ALLOWLIST`), and the client connects to the vetted address. Every failure (refused
 * address, DNS, closed port, timeout, authentication) is the same coded error; the cause goes to
 * the server log only.
 */
@Injectable()
export class SourceConnector {
  private readonly logger = new Logger(SourceConnector.name);
  private readonly policy: EgressPolicy;

  constructor(config: AssetRegistryConfig) {
    this.policy = EgressPolicy.fromAllowlist(config.SOURCE_HOST_ALLOWLIST, 'SOURCE_HOST_ALLOWLIST');
  }

  async connect(target: SourceTarget): Promise<Client> {
    let client: Client | undefined;
    try {
      client = new Client(await this.clientConfig(target, 'ops-catalog-sync'));
      await client.connect();
      return client;
    } catch (error) {
      await client?.end().catch(() => undefined);
      this.logger.warn(
        `Catalog source connection refused or failed (${describeTarget(target)}): ${(error as Error).message}`,
      );
      throw new AssetRegistryException(Code.CATALOG_SOURCE_UNAVAILABLE, SOURCE_UNREACHABLE_MESSAGE);
    }
  }

  /**
   * The pg client config for a target: the host resolved and vetted once (the address, not the name, is
   * what the client connects to). Throws a plain Error naming the cause (for the server log only).
   */
  async clientConfig(target: SourceTarget, applicationName: string): Promise<ClientConfig> {
    const parsed: ClientConfig = target.url ? parseIntoClientConfig(target.url) : {};
    // pg falls back to PGHOST/PGPASSWORD/... and to localhost for what is missing; nothing is left to it.
    const hostname = (target.url ? parsed.host : target.host) || 'localhost';
    const port = Number((target.url ? parsed.port : target.port) ?? DEFAULT_PORT);
    const password = target.password ?? (typeof parsed.password === 'string' ? parsed.password : '');
    const common: ClientConfig = {
      port,
      database: (target.url ? parsed.database : target.database) ?? undefined,
      user: (target.url ? parsed.user : target.user) ?? undefined,
      password: () => password,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: applicationName,
    };
    const ssl = target.ssl || Boolean(parsed.ssl);
    if (hostname.startsWith('/')) {
      // A Unix socket is the server's own machine: only an operator can open it up.
      if (!this.policy.isAllowlisted(hostname, port))
        throw new Error(`socket ${hostname} is not allowlisted`);
      return { ...common, host: hostname };
    }
    const vetted = await vetHost(this.policy, hostname, port);
    const sslOptions =
      typeof parsed.ssl === 'object' && parsed.ssl !== null
        ? { ...parsed.ssl }
        : ({} as Record<string, unknown>);
    return {
      ...common,
      host: vetted.address,
      // The certificate is checked against the name the asset gave, not the address connected to.
      ...(ssl ? { ssl: { ...sslOptions, ...(net.isIP(hostname) ? {} : { servername: hostname }) } } : {}),
    };
  }
}

export function describeTarget(target: SourceTarget): string {
  if (target.url) {
    try {
      const config = parseIntoClientConfig(target.url);
      return `${config.host ?? '?'}:${config.port ?? DEFAULT_PORT}`;
    } catch {
      return 'unparseable url';
    }
  }
  return `${target.host ?? 'localhost'}:${target.port ?? DEFAULT_PORT}`;
}
