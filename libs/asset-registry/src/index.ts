export { AssetRegistryModule } from './asset-registry.module';
export * from './asset-contents';
