import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { AppConfig, type Principal } from '@app/platform';
import { McpToolServer } from './mcp-tool-server.service';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  tenantId: string;
  lastUsed: number;
  idleTimer?: NodeJS.Timeout;
}

type RequestWithBody = IncomingMessage & { body?: unknown };

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

/**
 * Streamable HTTP sessions of the MCP endpoint. Stateful: `tools/list_changed` is a server-initiated
 * notification, which needs a session (and its GET stream) to reach the client. A session belongs to
 * the API key that opened it; another key using its id gets "session not found". Sessions live in
 * this process's memory: behind a load balancer, route `/mcp` with session affinity.
 */
@Injectable()
export class McpHttpSessions implements OnModuleDestroy {
  private readonly logger = new Logger(McpHttpSessions.name);
  private readonly sessions = new Map<string, Session>();
  /** Initialize requests in flight per tenant: they count against the cap before their session exists. */
  private readonly opening = new Map<string, number>();

  constructor(
    private readonly mcpServer: McpToolServer,
    private readonly config: AppConfig,
  ) {}

  private get idleMs(): number {
    return this.config.get('MCP_SESSION_IDLE_SECONDS') * 1000;
  }

  /** Open sessions (and ones being opened) of one tenant. */
  tenantSessions(tenantId: string): number {
    let count = this.opening.get(tenantId) ?? 0;
    for (const session of this.sessions.values()) if (session.tenantId === tenantId) count++;
    return count;
  }

  /** Seconds until the tenant's least recently used session expires (when a slot frees up at the latest). */
  private retryAfter(tenantId?: string): number {
    let oldest = Infinity;
    for (const session of this.sessions.values())
      if (!tenantId || session.tenantId === tenantId) oldest = Math.min(oldest, session.lastUsed);
    const waitMs = Number.isFinite(oldest) ? oldest + this.idleMs - Date.now() : this.idleMs;
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: RequestWithBody, res: ServerResponse, principal: Principal): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session || session.keyId !== principal.keyId) {
        jsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
        return;
      }
      this.touch(sessionId, session);
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      jsonRpcError(
        res,
        400,
        -32000,
        'No session: send an initialize request first (without Mcp-Session-Id).',
      );
      return;
    }
    const tenantId = principal.tenantId;
    const perTenant = this.config.get('MCP_MAX_SESSIONS_PER_TENANT');
    if (this.tenantSessions(tenantId) >= perTenant) {
      // One tenant's burst is that tenant's problem: the others keep their sessions.
      jsonRpcError(
        res,
        429,
        -32000,
        `This tenant has ${perTenant} open MCP sessions, its limit; close unused ones (DELETE /mcp) or wait for idle ones to expire.`,
        this.retryAfter(tenantId),
      );
      return;
    }
    const opening = [...this.opening.values()].reduce((sum, n) => sum + n, 0);
    if (this.sessions.size + opening >= this.config.get('MCP_MAX_SESSIONS')) {
      jsonRpcError(
        res,
        503,
        -32000,
        'Too many open MCP sessions; close unused ones (DELETE /mcp).',
        this.retryAfter(),
      );
      return;
    }
    this.opening.set(tenantId, (this.opening.get(tenantId) ?? 0) + 1);
    try {
      await this.open(req, res, principal);
    } finally {
      const left = (this.opening.get(tenantId) ?? 1) - 1;
      if (left > 0) this.opening.set(tenantId, left);
      else this.opening.delete(tenantId);
    }
  }

  private async open(req: RequestWithBody, res: ServerResponse, principal: Principal): Promise<void> {
    const server = this.mcpServer.createServer(principal);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = {
          transport,
          server,
          keyId: principal.keyId,
          tenantId: principal.tenantId,
          lastUsed: Date.now(),
        };
        this.sessions.set(id, session);
        this.touch(id, session);
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
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
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
    }, this.idleMs);
    session.idleTimer.unref();
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
