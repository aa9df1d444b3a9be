import { Injectable } from '@nestjs/common';
import { CacheStore } from '@app/platform';
import { ToolsConfig } from '../tools.config';

/** What any replica needs to serve a session another one opened (the transport itself stays local). */
export interface McpSessionRecord {
  tenantId: string;
  keyId: string;
  /** The client's initialize params (protocol version, capabilities, client info), replayed on restore. */
  initialize: Record<string, unknown>;
  initialized: true;
}

export type McpSessionLookup =
  | { state: 'found'; record: McpSessionRecord }
  | { state: 'missing' }
  /** Not shared (no Redis) or Redis unreachable: only this process's memory can answer. */
  | { state: 'unknown' };

const key = (sessionId: string) => `mcp:session:${sessionId}`;

/**
 * MCP session records in the shared cache (Redis), so consecutive requests of one session can land on
 * different replicas without affinity. Each use renews the record for MCP_SESSION_IDLE_SECONDS.
 */
@Injectable()
export class McpSessionRecords {
  constructor(
    private readonly cache: CacheStore,
    private readonly config: ToolsConfig,
  ) {}

  get shared(): boolean {
    return this.cache.backend === 'redis';
  }

  private get ttlSeconds(): number {
    return this.config.MCP_SESSION_IDLE_SECONDS;
  }

  async save(sessionId: string, record: McpSessionRecord): Promise<void> {
    if (this.shared) await this.cache.set(key(sessionId), record, this.ttlSeconds);
  }

  async find(sessionId: string): Promise<McpSessionLookup> {
    if (!this.shared) return { state: 'unknown' };
    const record = await this.cache.get<McpSessionRecord>(key(sessionId));
    if (record) {
      // Renew without writing, so a DELETE racing this request cannot see its record come back; gone
      // between the read and the renewal means it was just closed.
      const renewed = await this.cache.expire(key(sessionId), this.ttlSeconds);
      return renewed === false ? { state: 'missing' } : { state: 'found', record };
    }
    return this.cache.health().available ? { state: 'missing' } : { state: 'unknown' };
  }

  async remove(sessionId: string): Promise<void> {
    if (this.shared) await this.cache.delete(key(sessionId));
  }
}
