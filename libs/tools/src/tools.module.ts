import { Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssetContentCheckPort, AssetRegistryModule, AssetTypeRegistry } from '@app/asset-registry';
import { POLICY_ASSET_TYPE, SCREEN_ASSET_TYPE, STAGE_ASSET_TYPE } from './assets/tool-asset-types';
import { DocumentsModule } from '@app/documents';
import { ConfigFeatureModule } from '@app/platform';
import { PendingActionController } from './actions/pending-action.controller';
import { PendingActionEntity } from './actions/pending-action.entity';
import { PendingActionRepository } from './actions/pending-action.repository';
import { PendingActionService } from './actions/pending-action.service';
import { StageController } from './api/stage.controller';
import { ToolsController } from './api/tools.controller';
import { DocumentSearchTool } from './builtin/document-search.tool';
import { TenantToolLimiter } from './core/tenant-tool-limiter';
import { ToolPolicyService } from './core/tool-policy.service';
import { ToolRegistry } from './core/tool-registry';
import { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
import { HttpToolsModule } from './http/http-tools.module';
import { ToolKindsModule } from './kinds/tool-kinds.module';
import { McpClientService } from './mcp/mcp-client.service';
import { McpContentService } from './mcp/mcp-content.service';
import { McpHttpController } from './mcp/mcp-http.controller';
import { McpHttpSessions } from './mcp/mcp-http-sessions.service';
import { McpSessionRecords } from './mcp/mcp-session-records';
import { McpToolServer } from './mcp/mcp-tool-server.service';
import { StageExecutorService } from './stage/stage-executor.service';
import { StageRunEntity } from './stage/stage-run.entity';
import { StageRunRepository } from './stage/stage-run.repository';
import { ToolsConfig } from './tools.config';

@Module({
  imports: [
    ConfigFeatureModule.register('tools', ToolsConfig),
    DiscoveryModule,
    ToolKindsModule,
    HttpToolsModule,
    AssetRegistryModule,
    DocumentsModule,
    TypeOrmModule.forFeature([StageRunEntity, PendingActionEntity]),
  ],
  controllers: [ToolsController, StageController, McpHttpController, PendingActionController],
  providers: [
    TenantToolLimiter,
    ToolPolicyService,
    ToolRegistry,
    DynamicToolLoader,
    DocumentSearchTool,
    StageRunRepository,
    StageExecutorService,
    McpToolServer,
    McpContentService,
    McpHttpSessions,
    McpSessionRecords,
    McpClientService,
    PendingActionRepository,
    PendingActionService,
  ],
  // ToolKindsModule: its ToolDataPresence port is read by the planner (and filled by the OPS lib).
  exports: [
    ToolKindsModule,
    ToolRegistry,
    StageExecutorService,
    McpToolServer,
    McpClientService,
    PendingActionService,
  ],
})
export class ToolsModule implements OnModuleInit {
  constructor(
    private readonly contentChecks: AssetContentCheckPort,
    private readonly stages: StageExecutorService,
    private readonly assetTypes: AssetTypeRegistry,
  ) {}

  /**
   * The asset types this lib owns besides `tool` (registered with the kinds): stages, policies
   * (`tool_access` is the registry's) and screens. A `stage` asset is published only when its tools
   * exist and its references resolve.
   */
  onModuleInit(): void {
    this.assetTypes.register(STAGE_ASSET_TYPE);
    this.assetTypes.register(POLICY_ASSET_TYPE);
    this.assetTypes.register(SCREEN_ASSET_TYPE);
    this.contentChecks.register('stage', (tenantId, content) =>
      this.stages.checkStageAsset(tenantId, content),
    );
  }
}
