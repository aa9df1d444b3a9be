import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DemoController } from './api/demo.controller';
import { CiLookupTool } from './builtin/ci-lookup.tool';
import { GraphAnalysisTool } from './builtin/graph-analysis.tool';
import { HistoryQueryTool } from './builtin/history-query.tool';
import { MetricQueryTool } from './builtin/metric-query.tool';
import { ToolRegistry } from './core/tool-registry';
import { DemoDataRepository } from './demo/demo-data.repository';
import { DemoDataScheduler } from './demo/demo-data.scheduler';
import { DemoDataService } from './demo/demo-data.service';
import { DemoLoadEntity } from './demo/demo-load.entity';
import { CiRelationEntity } from './ops/ci-relation.entity';
import { CiRelationRepository } from './ops/ci-relation.repository';
import { ConfigurationItemEntity } from './ops/configuration-item.entity';
import { ConfigurationItemRepository } from './ops/configuration-item.repository';
import { HistoryEventEntity } from './ops/history-event.entity';
import { HistoryEventRepository } from './ops/history-event.repository';
import { MetricSampleEntity } from './ops/metric-sample.entity';
import { MetricRepository } from './ops/metric.repository';
import { StageRunEntity } from './stage/stage-run.entity';

@Module({
  imports: [
    DiscoveryModule,
    TypeOrmModule.forFeature([
      ConfigurationItemEntity,
      MetricSampleEntity,
      HistoryEventEntity,
      CiRelationEntity,
      StageRunEntity,
      DemoLoadEntity,
    ]),
  ],
  controllers: [DemoController],
  providers: [
    ToolRegistry,
    ConfigurationItemRepository,
    MetricRepository,
    HistoryEventRepository,
    CiRelationRepository,
    CiLookupTool,
    MetricQueryTool,
    HistoryQueryTool,
    GraphAnalysisTool,
    DemoDataRepository,
    DemoDataService,
    DemoDataScheduler,
  ],
  exports: [ToolRegistry, DemoDataService],
})
export class ToolsModule {}
