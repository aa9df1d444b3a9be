import { Logger } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Readable } from 'node:stream';
import type { ToolRegistry } from '../core/tool-registry';
import { MCP_SERVER_NAME, MCP_SERVER_VERSION } from './mcp-tool-server.service';
import { MCP_TOOL_SEPARATOR, McpRemoteTool } from './mcp-remote.tool';
import { mcpClient, mcpClientHttp, mcpClientStdio, mcpTypes } from './mcp-sdk';
import { MCP_DEFAULT_TIMEOUT_MS, McpServerConfig } from './mcp-servers.config';

export type McpConnectionState = 'connecting' | 'connected' | 'disconnected' | 'stopped';

export interface McpConnectionStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpConnectionState;
  tools: number;
  attempts: number;
  last_error: string | null;
  connected_at: string | null;
}

export interface ReconnectPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Liveness ping of a connected server (HTTP servers have no process to watch). */
  pingIntervalMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  pingIntervalMs: 30_000,
};

/**
 * One external MCP server: connects, registers its tools as `<name>__<tool>`, follows its
 * list_changed notifications, and when it dies marks its tools unavailable and reconnects with
 * exponential backoff. Nothing here throws into the caller: failures are state.
 */
export class McpServerConnection {
  private readonly logger: Logger;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private client: Client | null = null;
  private handshaking: Client | null = null;
  private state: McpConnectionState = 'disconnected';
  private attempts = 0;
  private lastError: string | null = null;
  private connectedAt: Date | null = null;
  private toolCount = 0;
  private retryTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;
  private generation = 0;

  constructor(
    private readonly config: McpServerConfig,
    private readonly registry: ToolRegistry,
    private readonly policy: ReconnectPolicy = DEFAULT_RECONNECT_POLICY,
  ) {
    this.logger = new Logger(`McpServer:${config.name}`);
    this.prefix = `${config.name}${MCP_TOOL_SEPARATOR}`;
    this.timeoutMs = config.timeout_ms ?? MCP_DEFAULT_TIMEOUT_MS;
  }

  status(): McpConnectionStatus {
    return {
      name: this.config.name,
      transport: this.config.url ? 'http' : 'stdio',
      state: this.state,
      tools: this.toolCount,
      attempts: this.attempts,
      last_error: this.lastError,
      connected_at: this.connectedAt?.toISOString() ?? null,
    };
  }

  /** Starts connecting in the background; resolves once the first attempt has ended either way. */
  async start(): Promise<void> {
    if (this.state === 'stopped') return;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.generation++;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const clients = [this.client, this.handshaking];
    this.client = null;
    this.handshaking = null;
    await Promise.all(
      clients.filter((c): c is Client => c !== null).map((c) => c.close().catch(() => undefined)),
    );
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.state = 'connecting';
    this.attempts++;
    const client = new (mcpClient().Client)(
      { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
      { capabilities: {} },
    );
    const transport = this.createTransport();
    this.handshaking = client;
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
      this.handshaking = null;
      if (generation !== this.generation) {
        await client.close();
        return;
      }
      client.onclose = () => this.lost(generation, 'the connection closed');
      client.onerror = (error) => this.logger.debug({ msg: 'MCP transport error', error: error.message });
      client.setNotificationHandler(mcpTypes().ToolListChangedNotificationSchema, () => {
        void this.refreshTools(client, generation).catch((error: Error) =>
          this.lost(generation, error.message),
        );
      });
      this.client = client;
      await this.refreshTools(client, generation);
      this.state = 'connected';
      this.connectedAt = new Date();
      this.attempts = 0;
      this.lastError = null;
      this.startPing(client, generation);
      this.logger.log({ msg: 'MCP server connected', server: this.config.name, tools: this.toolCount });
    } catch (error) {
      if (this.handshaking === client) this.handshaking = null;
      await client.close().catch(() => undefined);
      this.lost(generation, (error as Error).message);
    }
  }

  private async refreshTools(client: Client, generation: number): Promise<void> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    if (generation !== this.generation) return;
    const link = {
      server: this.config.name,
      client: () => (this.state === 'connected' || this.state === 'connecting' ? this.client : null),
      reportTransportFailure: (error: Error) => this.lost(generation, error.message),
    };
    // Remove and re-add in one synchronous step: callers never see a half-refreshed set.
    this.registry.removeExternalTools(this.prefix);
    let count = 0;
    for (const remote of tools) {
      try {
        this.registry.setExternalTool(new McpRemoteTool(remote, link, this.timeoutMs));
        count++;
      } catch (error) {
        this.logger.warn({ msg: 'MCP tool skipped', tool: remote.name, error: (error as Error).message });
      }
    }
    this.toolCount = count;
  }

  /** The server went away (or never came): its tools stay listed but unavailable until it is back. */
  private lost(generation: number, reason: string): void {
    if (generation !== this.generation || this.state === 'stopped') return;
    this.generation++;
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = null;
    void client?.close().catch(() => undefined);
    this.state = 'disconnected';
    this.lastError = reason;
    this.registry.setExternalAvailability(this.prefix, false);
    const delay = Math.min(
      this.policy.maxDelayMs,
      this.policy.initialDelayMs * 2 ** Math.max(0, this.attempts - 1),
    );
    const jittered = Math.round(delay * (0.8 + Math.random() * 0.4));
    this.logger.warn({
      msg: 'MCP server unavailable, will retry',
      server: this.config.name,
      reason,
      retry_in_ms: jittered,
    });
    this.retryTimer = setTimeout(() => void this.connect(), jittered);
    this.retryTimer.unref();
  }

  private startPing(client: Client, generation: number): void {
    this.pingTimer = setInterval(() => {
      client
        .ping({ timeout: this.timeoutMs })
        .catch((error: Error) => this.lost(generation, `ping failed: ${error.message}`));
    }, this.policy.pingIntervalMs);
    this.pingTimer.unref();
  }

  private createTransport(): Transport {
    if (this.config.url) {
      return new (mcpClientHttp().StreamableHTTPClientTransport)(new URL(this.config.url), {
        requestInit: { headers: this.config.headers ?? {} },
      });
    }
    const { getDefaultEnvironment, StdioClientTransport } = mcpClientStdio();
    const transport = new StdioClientTransport({
      command: this.config.command as string,
      args: this.config.args ?? [],
      env: { ...getDefaultEnvironment(), ...(this.config.env ?? {}) },
      cwd: this.config.cwd,
      stderr: 'pipe',
    });
    (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) =>
      this.logger.debug({
        msg: 'MCP server stderr',
        server: this.config.name,
        text: chunk.toString().slice(0, 2000),
      }),
    );
    return transport;
  }
}
