export { AssetRegistryModule } from './asset-registry.module';
