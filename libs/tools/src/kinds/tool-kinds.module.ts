import { Module, OnModuleInit } from '@nestjs/common';
import {
  AssetRegistryModule,
  AssetTypeRegistry,
  ToolAssetDryRunner,
  ToolDryRunnerPort,
} from '@app/asset-registry';
import { toolAssetType } from '../assets/tool-asset-types';
import { SeedPlanShape } from '../stage/seed-plan-shape';
import { ToolAssetDryRunService } from './tool-asset-dry-run.service';
import { ToolDataPresence } from './tool-data-presence';
import { ToolKindRegistry } from './tool-kind.registry';

/**
 * The tool-kind registration port and the publish-time dry run built on it. Modules that implement
 * a kind import this module and register their factory on init; this module plugs the dry runner
 * into the asset registry (which sits below the tools library and so cannot import it). The other
 * ports libs above fill on init live here too: tool data presence and the seed plan shape.
 */
@Module({
  imports: [AssetRegistryModule],
  providers: [
    ToolKindRegistry,
    ToolDataPresence,
    SeedPlanShape,
    ToolAssetDryRunService,
    { provide: ToolAssetDryRunner, useExisting: ToolAssetDryRunService },
  ],
  exports: [ToolKindRegistry, ToolDataPresence, SeedPlanShape, ToolAssetDryRunner],
})
export class ToolKindsModule implements OnModuleInit {
  constructor(
    private readonly dryRunners: ToolDryRunnerPort,
    private readonly dryRunner: ToolAssetDryRunService,
    private readonly assetTypes: AssetTypeRegistry,
    private readonly kinds: ToolKindRegistry,
  ) {}

  /** Also the `tool` asset type, whose `tool_type` is one of the kinds registered here. */
  onModuleInit(): void {
    this.dryRunners.register(this.dryRunner);
    this.assetTypes.register(toolAssetType(() => this.kinds.configSchemas()));
  }
}
