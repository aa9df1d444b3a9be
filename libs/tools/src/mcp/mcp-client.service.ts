import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { HealthRegistry } from '@app/platform';
import { ToolRegistry } from '../core/tool-registry';
import { McpConnectionStatus, McpServerConnection } from './mcp-server-connection';
import { McpServerConfig, parseMcpServers } from './mcp-servers.config';
import { ToolsConfig } from '../tools.config';

/**
 * Connects the external MCP servers of `MCP_SERVERS` at startup without waiting for them (a slow or
 * unreachable server never holds up boot) and keeps them connected. Readiness reports them as a
 * non-critical dependency.
 */
@Injectable()
export class McpClientService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(McpClientService.name);
  private readonly configs: McpServerConfig[];
  private readonly connections = new Map<string, McpServerConnection>();

  constructor(
    config: ToolsConfig,
    private readonly registry: ToolRegistry,
    private readonly health: HealthRegistry,
  ) {
    this.configs = parseMcpServers(config.MCP_SERVERS);
  }

  onModuleInit(): void {
    this.health.register('mcp_servers', () => Promise.resolve(this.healthReport()), { critical: false });
  }

  onApplicationBootstrap(): void {
    for (const server of this.configs) {
      const connection = new McpServerConnection(server, this.registry);
      this.connections.set(server.name, connection);
      void connection.start();
    }
    if (this.configs.length) {
      this.logger.log({ msg: 'connecting external MCP servers', servers: this.configs.map((s) => s.name) });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.stop()));
    this.connections.clear();
  }

  status(): McpConnectionStatus[] {
    return [...this.connections.values()].map((connection) => connection.status());
  }

  private healthReport() {
    const servers = this.status();
    if (servers.length === 0) return { status: 'disabled' as const };
    const down = servers.filter((s) => s.state !== 'connected').length;
    return { status: down === 0 ? ('ok' as const) : ('degraded' as const), servers };
  }
}
