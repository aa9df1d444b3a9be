import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AssetRegistryModule } from '@app/asset-registry';
import { ToolRegistry } from './core/tool-registry';
import { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
import { HttpToolsModule } from './http/http-tools.module';
import { McpClientService } from './mcp/mcp-client.service';
import { McpHttpController } from './mcp/mcp-http.controller';
import { McpHttpSessions } from './mcp/mcp-http-sessions.service';
import { McpToolServer } from './mcp/mcp-tool-server.service';

@Module({
  imports: [DiscoveryModule, HttpToolsModule, AssetRegistryModule],
  controllers: [McpHttpController],
  providers: [ToolRegistry, DynamicToolLoader, McpToolServer, McpHttpSessions, McpClientService],
  exports: [ToolRegistry, McpToolServer, McpClientService],
})
export class ToolsModule {}
