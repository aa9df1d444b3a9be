import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolRegistry } from './core/tool-registry';
import { ConfigurationItemEntity } from './ops/configuration-item.entity';
import { MetricSampleEntity } from './ops/metric-sample.entity';
import { HistoryEventEntity } from './ops/history-event.entity';
import { CiRelationEntity } from './ops/ci-relation.entity';
import { StageRunEntity } from './stage/stage-run.entity';
import { DemoLoadEntity } from './demo/demo-load.entity';

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
  providers: [ToolRegistry],
  exports: [ToolRegistry],
})
export class ToolsModule {}
