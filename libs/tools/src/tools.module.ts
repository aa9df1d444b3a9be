import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolRegistry } from './core/tool-registry';

@Module({
  imports: [DiscoveryModule],
  providers: [ToolRegistry],
  exports: [ToolRegistry],
})
export class ToolsModule {}
