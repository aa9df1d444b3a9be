import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ClusterLimits, type Principal } from '@app/platform';
import { mcpServer, mcpServerHttp, mcpTypes } from './mcp-sdk';
import { McpSessionRecords, type McpSessionRecord } from './mcp-session-records';
import { McpToolServer } from './mcp-tool-server.service';
import { ToolsConfig } from '../tools.config';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  tenantId: string;
  lastUsed: number;
  idleTimer?: NodeJS.Timeout;
}

type RequestWithBody = IncomingMessage & { body?: unknown };
type WebTransport = { handleRequest(request: Request): Promise<Response> };

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  retryAfterSeconds?: number,
): void {
  res.statusCode = status;
  if (retryAfterSeconds !== undefined) res.setHeader('retry-after', String(retryAfterSeconds));
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const ALL_SESSIONS_KEY = 'mcp:sessions:all';
const tenantKey = (tenantId: string) => `mcp:sessions:tenant:${tenantId}`;
const apiKeyKey = (keyId: string) => `mcp:sessions:key:${keyId}`;

/** Who a session's slots are counted for. */
type SlotOwner = Pick<Session, 'tenantId' | 'keyId'>;
const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Streamable HTTP sessions of the MCP endpoint. Stateful: `tools/list_changed` is a server-initiated
 * notification, which needs a session (and its GET stream) to reach the client. A session belongs to
 * the API key that opened it; another key using its id gets "session not found". The transport lives
 * in the memory of the process that serves it; with Redis the session's record (tenant, key, the
 * client's initialize params) is shared, so a replica that receives a request of a session opened
 * elsewhere restores it (a local server replaying the initialize) and no load-balancer affinity is
 * needed. list_changed reaches the client on the replica holding its GET stream, whose tool registry
 * follows the change bus.
 *
 * The session caps count every replica's sessions when Redis is shared: a session holds a lease,
 * named by its id, in its key's semaphore, its tenant's and the global one (a key's share keeps one
 * key, say a leaked reader key, from holding all of its tenant's sessions). Each request of the session, on
 * any replica, renews both for MCP_SESSION_IDLE_SECONDS, so a session nobody uses frees its slots after
 * the idle time even if the replica that opened it died; DELETE on any replica frees them at once.
 */
@Injectable()
export class McpHttpSessions implements OnModuleDestroy {
  private readonly logger = new Logger(McpHttpSessions.name);
  private readonly sessions = new Map<string, Session>();
  private readonly restoring = new Map<string, Promise<Session>>();
  /** Sessions whose DELETE this process is carrying out. */
  private readonly closing = new Set<string>();

  constructor(
    private readonly mcpServer: McpToolServer,
    private readonly config: ToolsConfig,
    private readonly records: McpSessionRecords,
    private readonly limits: ClusterLimits,
  ) {}

  private get idleMs(): number {
    return this.config.MCP_SESSION_IDLE_SECONDS * 1000;
  }

  /** This process's open sessions. */
  get size(): number {
    return this.sessions.size;
  }

  async handle(req: RequestWithBody, res: ServerResponse, principal: Principal): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const session = await this.resolve(sessionId, principal);
      if (!session) {
        jsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
        return;
      }
      if (req.method === 'DELETE') {
        await this.terminate(sessionId, session, req, res);
        return;
      }
      this.touch(sessionId, session);
      await this.renewSlots(session, sessionId);
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (req.method !== 'POST' || !mcpTypes().isInitializeRequest(req.body)) {
      jsonRpcError(
        res,
        400,
        -32000,
        'No session: send an initialize request first (without Mcp-Session-Id).',
      );
      return;
    }
    // The SDK's server modules load with the first session (mcp-sdk.ts): before its slots are taken, so
    // that the load does not run down the session's idle lease.
    mcpServer();
    mcpServerHttp();
    // The id is chosen before the session exists, so its slots are held while it opens.
    const id = randomUUID();
    const owner: SlotOwner = { tenantId: principal.tenantId, keyId: principal.keyId };
    const tenantId = principal.tenantId;
    const perTenant = this.config.MCP_MAX_SESSIONS_PER_TENANT;
    const perKey = Math.min(this.config.MCP_MAX_SESSIONS_PER_KEY, perTenant);
    const leaseSeconds = this.config.MCP_SESSION_IDLE_SECONDS;
    const keySlot = await this.limits.acquire(apiKeyKey(principal.keyId), {
      holder: id,
      limit: perKey,
      leaseSeconds,
    });
    if (!keySlot.granted) {
      // Checked before the tenant's cap: one key's sessions never count against its tenant's others.
      jsonRpcError(
        res,
        429,
        -32000,
        `This API key has ${perKey} open MCP sessions, its share of the tenant's ${perTenant}; close unused ones (DELETE /mcp) or wait for idle ones to expire.`,
        retryAfterSeconds(keySlot.retryAfterMs),
      );
      return;
    }
    const tenantSlot = await this.limits.acquire(tenantKey(tenantId), {
      holder: id,
      limit: perTenant,
      leaseSeconds,
    });
    if (!tenantSlot.granted) {
      await keySlot.slot.release();
      // One tenant's burst is that tenant's problem: the others keep their sessions.
      jsonRpcError(
        res,
        429,
        -32000,
        `This tenant has ${perTenant} open MCP sessions, its limit; close unused ones (DELETE /mcp) or wait for idle ones to expire.`,
        retryAfterSeconds(tenantSlot.retryAfterMs),
      );
      return;
    }
    const globalSlot = await this.limits.acquire(ALL_SESSIONS_KEY, {
      holder: id,
      limit: this.config.MCP_MAX_SESSIONS,
      leaseSeconds,
    });
    if (!globalSlot.granted) {
      await Promise.all([keySlot.slot.release(), tenantSlot.slot.release()]);
      jsonRpcError(
        res,
        503,
        -32000,
        'Too many open MCP sessions; close unused ones (DELETE /mcp).',
        retryAfterSeconds(globalSlot.retryAfterMs),
      );
      return;
    }
    try {
      await this.open(req, res, principal, id);
    } finally {
      // An initialize that did not open a session (refused by the transport, or failed) frees its slots.
      if (!this.sessions.has(id)) await this.releaseSlots(owner, id);
    }
  }

  /**
   * This process's session, or one another replica opened (restored from its shared record); none when
   * the id is unknown, closed (DELETE on any replica) or belongs to another key.
   */
  private async resolve(sessionId: string, principal: Principal): Promise<Session | undefined> {
    const lookup = await this.records.find(sessionId);
    // A DELETE of this session is under way here: the session is gone for every other request.
    if (this.closing.has(sessionId)) return undefined;
    const local = this.sessions.get(sessionId);
    if (lookup.state === 'unknown') return local?.keyId === principal.keyId ? local : undefined;
    if (lookup.state === 'missing') {
      if (local) {
        // Closed through another replica, or expired: drop this process's copy too.
        this.sessions.delete(sessionId);
        await this.close(local);
        await this.releaseSlots(local, sessionId);
      }
      return undefined;
    }
    if (lookup.record.keyId !== principal.keyId) return undefined;
    if (local) return local;
    // Concurrent first requests of a session on this replica restore it once.
    let restoring = this.restoring.get(sessionId);
    if (!restoring) {
      restoring = this.restore(sessionId, lookup.record, principal).finally(() =>
        this.restoring.delete(sessionId),
      );
      this.restoring.set(sessionId, restoring);
    }
    return restoring;
  }

  /**
   * DELETE: this process forgets the session before anything is awaited, so a request racing the DELETE
   * (typically the client's own GET stream) finds it gone instead of closing the transport under it,
   * which made the transport answer the DELETE 404. Then the transport answers, and the shared record
   * and the session's slots go.
   */
  private async terminate(
    sessionId: string,
    session: Session,
    req: RequestWithBody,
    res: ServerResponse,
  ): Promise<void> {
    this.closing.add(sessionId);
    this.sessions.delete(sessionId);
    try {
      await session.transport.handleRequest(req, res, req.body);
    } finally {
      // Closed (its idle timer too) even when the transport refused the DELETE (a bad protocol version
      // header, say): the session is already out of this process's map, nothing else would close it.
      await this.close(session);
      await this.records.remove(sessionId);
      await this.releaseSlots(session, sessionId);
      this.closing.delete(sessionId);
    }
  }

  private async restore(sessionId: string, record: McpSessionRecord, principal: Principal): Promise<Session> {
    const { server, transport } = this.createSession(principal, () => sessionId);
    await server.connect(transport);
    // The SDK has no way to adopt an existing session: replay the client's initialize, as the same id.
    const web = (transport as unknown as { _webStandardTransport?: WebTransport })._webStandardTransport;
    if (!web || typeof web.handleRequest !== 'function')
      throw new Error('this MCP SDK version cannot restore sessions (no web-standard transport)');
    const replay = await web.handleRequest(
      new Request('http://replica.local/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: record.initialize }),
      }),
    );
    await replay.text();
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`MCP session ${sessionId} could not be restored (status ${replay.status})`);
    this.logger.debug({ msg: 'MCP session restored from its shared record', sessionId });
    return session;
  }

  private async open(
    req: RequestWithBody,
    res: ServerResponse,
    principal: Principal,
    id: string,
  ): Promise<void> {
    const initialize = (req.body as { params?: Record<string, unknown> }).params ?? {};
    const { server, transport } = this.createSession(
      principal,
      () => id,
      (id) =>
        this.records.save(id, {
          tenantId: principal.tenantId,
          keyId: principal.keyId,
          initialize,
          initialized: true,
        }),
    );
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  private createSession(
    principal: Principal,
    sessionIdGenerator: () => string,
    onOpened?: (id: string) => Promise<void>,
  ): { server: Server; transport: StreamableHTTPServerTransport } {
    const server = this.mcpServer.createServer(principal);
    const transport: StreamableHTTPServerTransport = new (mcpServerHttp().StreamableHTTPServerTransport)({
      sessionIdGenerator,
      onsessioninitialized: async (id) => {
        const session: Session = {
          transport,
          server,
          keyId: principal.keyId,
          tenantId: principal.tenantId,
          lastUsed: Date.now(),
        };
        this.sessions.set(id, session);
        this.touch(id, session);
        await onOpened?.(id);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      const session = id ? this.sessions.get(id) : undefined;
      if (id && session) {
        clearTimeout(session.idleTimer);
        this.sessions.delete(id);
      }
    };
    return { server, transport };
  }

  async onModuleDestroy(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((session) => this.close(session)));
  }

  private touch(id: string, session: Session): void {
    clearTimeout(session.idleTimer);
    session.lastUsed = Date.now();
    session.idleTimer = setTimeout(() => {
      this.sessions.delete(id);
      void this.close(session);
      // A shared session may still be in use through another replica: its leases expire on their own
      // (renewed by that use). A session only this process knows ends here.
      if (!this.records.shared) void this.releaseSlots(session, id);
    }, this.idleMs);
    session.idleTimer.unref();
  }

  private async renewSlots(owner: SlotOwner, sessionId: string): Promise<void> {
    const leaseSeconds = this.config.MCP_SESSION_IDLE_SECONDS;
    await Promise.all([
      this.limits.renew(apiKeyKey(owner.keyId), sessionId, leaseSeconds),
      this.limits.renew(tenantKey(owner.tenantId), sessionId, leaseSeconds),
      this.limits.renew(ALL_SESSIONS_KEY, sessionId, leaseSeconds),
    ]);
  }

  private async releaseSlots(owner: SlotOwner, sessionId: string): Promise<void> {
    await Promise.all([
      this.limits.release(apiKeyKey(owner.keyId), sessionId),
      this.limits.release(tenantKey(owner.tenantId), sessionId),
      this.limits.release(ALL_SESSIONS_KEY, sessionId),
    ]);
  }

  private async close(session: Session): Promise<void> {
    clearTimeout(session.idleTimer);
    try {
      await session.server.close();
    } catch (error) {
      this.logger.debug({ msg: 'closing an MCP session failed', error: (error as Error).message });
    }
  }
}
