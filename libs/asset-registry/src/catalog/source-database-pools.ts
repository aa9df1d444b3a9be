import { createHash } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool, type PoolClient } from 'pg';
import { AppException, TenantSecretsService } from '@app/platform';
import type { SourceContent } from '../asset-contents';
import { AssetRegistryException, AssetRegistryExceptionCode as Code } from '../asset-registry.exception';
import { PublishedAssetReader } from '../reading/published-asset.reader';
import { describeTarget, SourceConnector, type SourceTarget } from './source-connector';
import { AssetRegistryConfig } from '../asset-registry.config';

/** One answer for every way reaching a source can fail, so a tool cannot be used to probe a network. */
export const sourceUnreachableMessage = (source: string) =>
  `Could not connect to the source database "${source}": it is unreachable, its host is not allowed ` +
  '(SOURCE_HOST_ALLOWLIST for private addresses), or it refused the credentials; the server log has the cause.';

const CONNECT_TIMEOUT_MS = 10_000;
/**
 * Client-side backstop over the statement timeout the caller sets on the server: a connection whose
 * server stopped answering is dropped instead of held. Above the longest sql tool timeout (60 s).
 */
const QUERY_HARD_TIMEOUT_MS = 70_000;

/** A connection to a tenant's source database, checked out for one unit of work. */
export interface SourceSession {
  client: PoolClient;
  /** The schema the source asset names (default `public`). */
  schema: string;
}

interface PoolEntry {
  pool: Pool;
  /** Hash of where and as whom the pool connects: a changed secret or source asset makes a new pool. */
  fingerprint: string;
  max: number;
  inUse: number;
  lastUsed: number;
}

/**
 * Pools of connections to tenants' `source` databases, one per tenant and source, for sql tools and
 * query_sql that read them. Every unit of work reads the published source asset and resolves its
 * secrets in the tenant's namespace at that moment: a rotated secret or edited source replaces the pool
 * (the old one closes once its connections come back). Hosts pass the egress policy (SourceConnector);
 * each pool holds at most SOURCE_POOL_MAX_CONNECTIONS connections and closes after
 * SOURCE_POOL_IDLE_SECONDS unused.
 */
@Injectable()
export class SourceDatabasePools implements OnModuleDestroy {
  private readonly logger = new Logger(SourceDatabasePools.name);
  private readonly pools = new Map<string, PoolEntry>();
  private readonly maxConnections: number;
  private readonly idleMs: number;
  private readonly maxPools: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    config: AssetRegistryConfig,
    private readonly reader: PublishedAssetReader,
    private readonly secrets: TenantSecretsService,
    private readonly connector: SourceConnector,
  ) {
    this.maxConnections = config.SOURCE_POOL_MAX_CONNECTIONS;
    this.idleMs = config.SOURCE_POOL_IDLE_SECONDS * 1000;
    this.maxPools = config.SOURCE_POOL_MAX_POOLS;
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1000, Math.floor(this.idleMs / 2)));
    this.sweeper.unref();
  }

  /** How many pools are open (for tests and diagnostics). */
  get openPools(): number {
    return this.pools.size;
  }

  /**
   * Runs `work` on a connection to the tenant's published source `name`. Throws SOURCE_NOT_FOUND,
   * SOURCE_SECRET_MISSING, SOURCE_UNAVAILABLE (one text for every connection failure) or SOURCE_BUSY.
   */
  async withSession<T>(
    tenantId: string,
    name: string,
    work: (session: SourceSession) => Promise<T>,
  ): Promise<T> {
    const source = await this.sourceContent(tenantId, name);
    const target = await this.target(tenantId, source);
    const entry = await this.poolFor(`${tenantId}\u0000${name}`, name, target);
    const busy = entry.pool.totalCount >= entry.max && entry.pool.idleCount === 0;
    entry.inUse++;
    entry.lastUsed = Date.now();
    let client: PoolClient;
    try {
      client = await entry.pool.connect();
    } catch (error) {
      entry.inUse--;
      const message = (error as Error).message;
      if (busy && /timeout/i.test(message))
        throw new AssetRegistryException(
          Code.SOURCE_BUSY,
          `All ${entry.max} connections to the source database "${name}" stayed in use; retry shortly (SOURCE_POOL_MAX_CONNECTIONS)`,
          { source: name, max_connections: entry.max, retry_after_seconds: 1 },
        );
      this.logger.warn(`Source ${name} (${describeTarget(target)}) connection failed: ${message}`);
      throw new AssetRegistryException(Code.SOURCE_UNAVAILABLE, sourceUnreachableMessage(name), {
        source: name,
      });
    }
    let failure: Error | undefined;
    try {
      return await work({ client, schema: source.schema ?? 'public' });
    } catch (error) {
      // A server error (SQLSTATE) leaves the connection usable; anything else (socket, protocol) does not.
      const code = (error as { code?: unknown }).code;
      if (!(typeof code === 'string' && code.length === 5)) failure = error as Error;
      throw error;
    } finally {
      client.release(failure);
      entry.inUse--;
      entry.lastUsed = Date.now();
    }
  }

  onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    const closing = [...this.pools.values()].map((entry) => entry.pool.end().catch(() => undefined));
    this.pools.clear();
    return Promise.all(closing).then(() => undefined);
  }

  private async sourceContent(tenantId: string, name: string): Promise<SourceContent> {
    const published = await this.reader.getPublished(tenantId, 'source', name);
    const content = published?.snapshot.content as SourceContent | undefined;
    if (!content || content.kind !== 'postgres')
      throw new AssetRegistryException(
        Code.SOURCE_NOT_FOUND,
        `No published postgres source asset named "${name}" (publish it, or fix the tool's source_ref)`,
        { source: name },
      );
    if (/^(pg_|information_schema$)/i.test(content.schema ?? 'public'))
      throw new AssetRegistryException(
        Code.CATALOG_SOURCE_INVALID,
        `Source "${name}" names the PostgreSQL system schema ${content.schema}, which tools never read`,
        { source: name, schema: content.schema },
      );
    return content;
  }

  /** Where and as whom to connect, the secrets resolved now in the tenant's own namespace. */
  private async target(tenantId: string, source: SourceContent): Promise<SourceTarget> {
    const c = source.connection;
    return {
      ...(c.url_ref
        ? { url: await this.secret(tenantId, c.url_ref, 'connection.url_ref') }
        : { host: c.host, port: c.port, database: c.database, user: c.user }),
      ...(c.password_ref
        ? { password: await this.secret(tenantId, c.password_ref, 'connection.password_ref') }
        : {}),
      ssl: c.ssl,
    };
  }

  private async secret(tenantId: string, ref: string, field: string): Promise<string> {
    try {
      return await this.secrets.resolve(tenantId, ref);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      throw new AssetRegistryException(Code.SOURCE_SECRET_MISSING, `${field}: ${error.message}`, {
        secret_ref: ref,
        field,
      });
    }
  }

  private async poolFor(key: string, name: string, target: SourceTarget): Promise<PoolEntry> {
    const fingerprint = createHash('sha256').update(JSON.stringify(target)).digest('hex');
    const existing = this.pools.get(key);
    if (existing?.fingerprint === fingerprint) return existing;
    if (existing) this.retire(key, existing);
    let config;
    try {
      config = await this.connector.clientConfig(target, 'ops-source-query');
    } catch (error) {
      this.logger.warn(`Source ${name} (${describeTarget(target)}) refused: ${(error as Error).message}`);
      throw new AssetRegistryException(Code.SOURCE_UNAVAILABLE, sourceUnreachableMessage(name), {
        source: name,
      });
    }
    // Another call may have made the same pool while the host was being vetted.
    const raced = this.pools.get(key);
    if (raced?.fingerprint === fingerprint) return raced;
    if (raced) this.retire(key, raced);
    this.makeRoom(name);
    const pool = new Pool({
      ...config,
      max: this.maxConnections,
      idleTimeoutMillis: this.idleMs,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_HARD_TIMEOUT_MS,
      allowExitOnIdle: true,
    });
    // An idle connection the server closed must not take the process down; the next call reconnects.
    pool.on('error', (error) => this.logger.warn(`Source ${name}: idle connection lost: ${error.message}`));
    const entry: PoolEntry = { pool, fingerprint, max: this.maxConnections, inUse: 0, lastUsed: Date.now() };
    this.pools.set(key, entry);
    return entry;
  }

  /** Past SOURCE_POOL_MAX_POOLS the least recently used idle pool closes; with none idle the call waits its turn elsewhere. */
  private makeRoom(name: string): void {
    if (this.pools.size < this.maxPools) return;
    const idle = [...this.pools.entries()]
      .filter(([, entry]) => entry.inUse === 0)
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
    if (!idle)
      throw new AssetRegistryException(
        Code.SOURCE_BUSY,
        `This process holds ${this.maxPools} source pools, all in use; retry shortly (SOURCE_POOL_MAX_POOLS)`,
        { source: name, retry_after_seconds: 1 },
      );
    this.retire(idle[0], idle[1]);
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [key, entry] of this.pools)
      if (entry.inUse === 0 && entry.lastUsed <= cutoff) this.retire(key, entry);
  }

  /** Drops the pool from the map; pg ends it once its checked-out connections are released. */
  private retire(key: string, entry: PoolEntry): void {
    if (this.pools.get(key) === entry) this.pools.delete(key);
    entry.pool.end().catch(() => undefined);
  }
}
