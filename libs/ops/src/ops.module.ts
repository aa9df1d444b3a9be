import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssetRegistryModule, AssetTypeRegistry } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { SeedPlanShape, ToolDataPresence, ToolKindRegistry, ToolKindsModule, ToolsConfig } from '@app/tools';
import { ConfigFeatureModule } from '@app/platform';
import { OpsConfig } from './ops.config';
import { CiRelationEntity } from './data/ci-relation.entity';
import { CiRelationRepository } from './data/ci-relation.repository';
import { ConfigurationItemEntity } from './data/configuration-item.entity';
import { ConfigurationItemRepository } from './data/configuration-item.repository';
import { HistoryEventEntity } from './data/history-event.entity';
import { HistoryEventRepository } from './data/history-event.repository';
import { MetricSampleEntity } from './data/metric-sample.entity';
import { MetricRepository } from './data/metric.repository';
import { OpsDataPresence } from './data/ops-data-presence.service';
import { DemoController } from './demo/demo.controller';
import { DemoDataRepository } from './demo/demo-data.repository';
import { DemoDataScheduler } from './demo/demo-data.scheduler';
import { DemoDataService } from './demo/demo-data.service';
import { DemoKnowledgeService } from './demo/demo-knowledge.service';
import { DemoLoadEntity } from './demo/demo-load.entity';
import { QUERY_ASSET_TYPE } from './query/query-asset-type';
import { QueryToolFactory } from './query/query-tool.factory';
import { SourceSqlRepository } from './sql/source-sql.repository';
import { SQL_TOOL_CONFIG_SCHEMA } from './sql/sql-tool-config.schema';
import { SqlToolFactory } from './sql/sql-tool.factory';
import { SqlToolRepository } from './sql/sql-tool.repository';
import { CiLookupTool } from './tools/ci-lookup.tool';
import { GraphAnalysisTool } from './tools/graph-analysis.tool';
import { HistoryQueryTool } from './tools/history-query.tool';
import { MetricQueryTool } from './tools/metric-query.tool';
import { OPS_SEED_PLAN_PARTS } from './tools/ops-seed-plan';

/**
 * The OPS domain: configuration items, metrics, history events and their relations, the built-in
 * tools over them (discovered by the tool registry through `@BuiltinTool`), the `sql` and `query`
 * tool kinds and the sandbox (registered on the tool-kind port), and the demo dataset with its loader.
 */
@Module({
  imports: [
    ConfigFeatureModule.register('ops', OpsConfig),
    // The sql tools wait for tool slots as every tool does (TOOL_QUEUE_WAIT_MS, TOOL_SLOT_LEASE_SECONDS).
    ConfigFeatureModule.register('tools', ToolsConfig),
    ToolKindsModule,
    AssetRegistryModule,
    DocumentsModule,
    TypeOrmModule.forFeature([
      ConfigurationItemEntity,
      MetricSampleEntity,
      HistoryEventEntity,
      CiRelationEntity,
      DemoLoadEntity,
    ]),
  ],
  controllers: [DemoController],
  providers: [
    ConfigurationItemRepository,
    MetricRepository,
    HistoryEventRepository,
    CiRelationRepository,
    OpsDataPresence,
    CiLookupTool,
    MetricQueryTool,
    HistoryQueryTool,
    GraphAnalysisTool,
    SqlToolRepository,
    SourceSqlRepository,
    SqlToolFactory,
    QueryToolFactory,
    DemoDataRepository,
    DemoDataService,
    DemoKnowledgeService,
    DemoDataScheduler,
  ],
  exports: [DemoDataService, OpsDataPresence, SqlToolFactory],
})
export class OpsModule implements OnModuleInit {
  constructor(
    private readonly kinds: ToolKindRegistry,
    private readonly sqlFactory: SqlToolFactory,
    private readonly queryFactory: QueryToolFactory,
    private readonly presence: ToolDataPresence,
    private readonly opsData: OpsDataPresence,
    private readonly seedPlan: SeedPlanShape,
    private readonly assetTypes: AssetTypeRegistry,
  ) {}

  /**
   * The `sql` tool kind reads the OPS tables through the sandbox, so the OPS domain provides it; so
   * does the `query` kind (published query assets), which runs its SQL through the same sandbox. The
   * seeds' plan shape names OPS tools, so its parts are registered here too, and the `query` asset
   * type (the query registry) that the `query` kind builds tools from.
   */
  onModuleInit(): void {
    this.kinds.register('sql', this.sqlFactory, { configSchema: SQL_TOOL_CONFIG_SCHEMA });
    this.kinds.register('query', this.queryFactory);
    this.assetTypes.register(QUERY_ASSET_TYPE);
    this.presence.register(this.opsData);
    this.seedPlan.register(OPS_SEED_PLAN_PARTS);
  }
}
