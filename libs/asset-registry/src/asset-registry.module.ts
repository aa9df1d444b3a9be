import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigFeatureModule } from '@app/platform';
import { AssetRegistryConfig } from './asset-registry.config';
import { CatalogIntrospectionRepository } from './catalog/catalog-introspection.repository';
import { CatalogSyncService } from './catalog/catalog-sync.service';
import { SourceConnector } from './catalog/source-connector';
import { SourceDatabasePools } from './catalog/source-database-pools';
import { AssetController } from './http/asset.controller';
import { AssetRegistryService } from './lifecycle/asset-registry.service';
import { ToolContractChecker } from './lifecycle/tool-contract.checker';
import { AssetContentCheckPort } from './lifecycle/asset-content-check.port';
import { ToolDryRunnerPort } from './lifecycle/tool-dry-runner.port';
import { AssetEntity } from './persistence/asset.entity';
import { AssetRepository } from './persistence/asset.repository';
import { AssetVersionEntity } from './persistence/asset-version.entity';
import { PublishedAssetReader } from './reading/published-asset.reader';
import { AssetTypeRegistry } from './types/asset-type.registry';
import { CATALOG_ASSET_TYPE, SOURCE_ASSET_TYPE } from './validation/asset-schemas';
import { AssetSpecValidator } from './validation/asset-spec.validator';

@Module({
  imports: [
    ConfigFeatureModule.register('asset-registry', AssetRegistryConfig),
    TypeOrmModule.forFeature([AssetEntity, AssetVersionEntity]),
  ],
  controllers: [AssetController],
  providers: [
    AssetTypeRegistry,
    AssetRepository,
    AssetSpecValidator,
    ToolDryRunnerPort,
    AssetContentCheckPort,
    ToolContractChecker,
    PublishedAssetReader,
    AssetRegistryService,
    CatalogIntrospectionRepository,
    CatalogSyncService,
    SourceConnector,
    SourceDatabasePools,
  ],
  exports: [
    AssetTypeRegistry,
    AssetRegistryService,
    PublishedAssetReader,
    CatalogSyncService,
    ToolDryRunnerPort,
    AssetContentCheckPort,
    SourceDatabasePools,
  ],
})
export class AssetRegistryModule implements OnModuleInit {
  constructor(private readonly types: AssetTypeRegistry) {}

  /** The types this lib owns; the others are registered by their libs (tools, ops, planner). */
  onModuleInit(): void {
    this.types.register(CATALOG_ASSET_TYPE);
    this.types.register(SOURCE_ASSET_TYPE);
  }
}
