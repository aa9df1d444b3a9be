import { Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { PendingActionController } from './actions/pending-action.controller';
import { PendingActionEntity } from './actions/pending-action.entity';
import { PendingActionRepository } from './actions/pending-action.repository';
import { PendingActionService } from './actions/pending-action.service';
import { DemoController } from './api/demo.controller';
import { StageController } from './api/stage.controller';
import { ToolsController } from './api/tools.controller';
import { CiLookupTool } from './builtin/ci-lookup.tool';
import { DocumentSearchTool } from './builtin/document-search.tool';
import { GraphAnalysisTool } from './builtin/graph-analysis.tool';
import { HistoryQueryTool } from './builtin/history-query.tool';
import { MetricQueryTool } from './builtin/metric-query.tool';
import { TenantToolLimiter } from './core/tenant-tool-limiter';
import { ToolRegistry } from './core/tool-registry';
import { DemoDataRepository } from './demo/demo-data.repository';
import { DemoDataScheduler } from './demo/demo-data.scheduler';
import { DemoDataService } from './demo/demo-data.service';
import { DemoKnowledgeService } from './demo/demo-knowledge.service';
import { DemoLoadEntity } from './demo/demo-load.entity';
import { DynamicToolLoader } from './dynamic/dynamic-tool-loader.service';
import { HttpToolsModule } from './http/http-tools.module';
import { ToolKindRegistry } from './kinds/tool-kind.registry';
import { ToolKindsModule } from './kinds/tool-kinds.module';
import { McpClientService } from './mcp/mcp-client.service';
import { McpHttpController } from './mcp/mcp-http.controller';
import { McpHttpSessions } from './mcp/mcp-http-sessions.service';
import { McpToolServer } from './mcp/mcp-tool-server.service';
import { CiRelationEntity } from './ops/ci-relation.entity';
import { CiRelationRepository } from './ops/ci-relation.repository';
import { ConfigurationItemEntity } from './ops/configuration-item.entity';
import { ConfigurationItemRepository } from './ops/configuration-item.repository';
import { OpsDataPresence } from './ops/ops-data-presence.service';
import { HistoryEventEntity } from './ops/history-event.entity';
import { HistoryEventRepository } from './ops/history-event.repository';
import { MetricSampleEntity } from './ops/metric-sample.entity';
import { MetricRepository } from './ops/metric.repository';
import { SqlToolFactory } from './sql/sql-tool.factory';
import { SqlToolRepository } from './sql/sql-tool.repository';
import { StageExecutorService } from './stage/stage-executor.service';
import { StageRunEntity } from './stage/stage-run.entity';
import { StageRunRepository } from './stage/stage-run.repository';

@Module({
  imports: [
    DiscoveryModule,
    ToolKindsModule,
    HttpToolsModule,
    AssetRegistryModule,
    DocumentsModule,
    TypeOrmModule.forFeature([
      ConfigurationItemEntity,
      MetricSampleEntity,
      HistoryEventEntity,
      CiRelationEntity,
      StageRunEntity,
      DemoLoadEntity,
      PendingActionEntity,
    ]),
  ],
  controllers: [ToolsController, StageController, DemoController, McpHttpController, PendingActionController],
  providers: [
    TenantToolLimiter,
    ToolRegistry,
    DynamicToolLoader,
    ConfigurationItemRepository,
    OpsDataPresence,
    MetricRepository,
    HistoryEventRepository,
    CiRelationRepository,
    CiLookupTool,
    MetricQueryTool,
    HistoryQueryTool,
    GraphAnalysisTool,
    DocumentSearchTool,
    DemoDataRepository,
    DemoDataService,
    DemoKnowledgeService,
    DemoDataScheduler,
    SqlToolRepository,
    SqlToolFactory,
    StageRunRepository,
    StageExecutorService,
    McpToolServer,
    McpHttpSessions,
    McpClientService,
    PendingActionRepository,
    PendingActionService,
  ],
  exports: [
    ToolRegistry,
    DemoDataService,
    OpsDataPresence,
    SqlToolFactory,
    StageExecutorService,
    McpToolServer,
    McpClientService,
    PendingActionService,
  ],
})
export class ToolsModule implements OnModuleInit {
  constructor(
    private readonly kinds: ToolKindRegistry,
    private readonly sqlFactory: SqlToolFactory,
  ) {}

  /** The `sql` tool kind lives with the OPS data it reads, so this module registers it. */
  onModuleInit(): void {
    this.kinds.register('sql', this.sqlFactory);
  }
}
