import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolRegistry } from './core/tool-registry';
import { HttpToolsModule } from './http/http-tools.module';
import { McpClientService } from './mcp/mcp-client.service';
import { McpHttpController } from './mcp/mcp-http.controller';
import { McpHttpSessions } from './mcp/mcp-http-sessions.service';
import { McpToolServer } from './mcp/mcp-tool-server.service';

@Module({
  imports: [DiscoveryModule, HttpToolsModule],
  controllers: [McpHttpController],
  providers: [ToolRegistry, McpToolServer, McpHttpSessions, McpClientService],
  exports: [ToolRegistry, McpToolServer, McpClientService],
})
export class ToolsModule {}
