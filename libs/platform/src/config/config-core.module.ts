import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { PlatformConfig } from '../platform.config';
import { ConfigFeatureModule } from './config-feature.module';
import { ConfigSchema, validateConfigs } from './config-schema';

@Global()
@Module({})
export class ConfigCoreModule {
  /**
   * Reads and validates the environment when called, not when this file is loaded: the platform's keys
   * and those of every config class given (the application passes every lib's, so one bad value in any
   * lib fails the boot with every bad key listed at once). Each lib's module registers its own class.
   */
  static forRoot(schemas: readonly ConfigSchema[] = []): DynamicModule {
    const all = [...new Set<ConfigSchema>([PlatformConfig, ...schemas])];
    return {
      module: ConfigCoreModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          cache: true,
          ignoreEnvFile: process.env.NODE_ENV === 'test',
          validate: (raw) => Object.assign({}, ...validateConfigs(all, raw).values()) as object,
        }),
        ConfigFeatureModule.register('platform', PlatformConfig),
      ],
    };
  }
}
