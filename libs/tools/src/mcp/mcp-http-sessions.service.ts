import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Principal } from '@app/platform';
import { McpToolServer } from './mcp-tool-server.service';

/** A session nobody used for this long is closed (its SSE stream too). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
export const MCP_MAX_SESSIONS = 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  idleTimer?: NodeJS.Timeout;
}

type RequestWithBody = IncomingMessage & { body?: unknown };

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
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

  constructor(private readonly mcpServer: McpToolServer) {}

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
    if (this.sessions.size >= MCP_MAX_SESSIONS) {
      jsonRpcError(res, 503, -32000, 'Too many open MCP sessions; close unused ones (DELETE /mcp).');
      return;
    }
    const server = this.mcpServer.createServer(principal);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = { transport, server, keyId: principal.keyId };
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
    session.idleTimer = setTimeout(() => {
      this.sessions.delete(id);
      void this.close(session);
    }, MCP_SESSION_IDLE_MS);
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
