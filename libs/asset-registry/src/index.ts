export { AssetRegistryModule } from './asset-registry.module';
export { AssetRegistryConfig } from './asset-registry.config';
export * from './asset-contents';
export {
  ASSET_STATUSES,
  SPEC_FIELDS,
  type AssetDiffEntry,
  type AssetDiffView,
  type AssetSnapshot,
  type AssetSpec,
  type AssetStatus,
  type AssetVersionView,
  type AssetView,
  type BreakingChange,
  type ContractIssue,
  type Page,
  type PublishedAsset,
  type PublishedContent,
  type SpecField,
  type ToolContractReport,
} from './asset.types';
export {
  AssetRegistryService,
  type Actor,
  type CreateAssetInput,
  type UpdateAssetInput,
  type PublishOptions,
} from './lifecycle/asset-registry.service';
export { ToolDryRunnerPort } from './lifecycle/tool-dry-runner.port';
export { PublishedAssetReader } from './reading/published-asset.reader';
export {
  CatalogSyncService,
  type CatalogSyncActor,
  type CatalogSyncInput,
  type CatalogSyncResult,
} from './catalog/catalog-sync.service';
export {
  SourceDatabasePools,
  sourceUnreachableMessage,
  type SourceSession,
} from './catalog/source-database-pools';
export { AssetRegistryException, AssetRegistryExceptionCode } from './asset-registry.exception';
export {
  ASSET_SCHEMA_PARTS,
  CATALOG_ASSET_TYPE,
  SECRET_REF_PATTERN,
  SOURCE_ASSET_TYPE,
  SOURCE_REF_SCHEMA,
} from './validation/asset-schemas';
export {
  ASSET_NAME_PATTERN,
  AssetTypeRegistry,
  contentAssetType,
  type AssetSchema,
  type AssetType,
  type AssetTypeDefinition,
} from './types/asset-type.registry';
export { AssetContentCheckPort, type AssetContentChecker } from './lifecycle/asset-content-check.port';
export { AssetSpecValidator } from './validation/asset-spec.validator';
