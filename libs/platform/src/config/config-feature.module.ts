import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import { ConfigSchema, readConfig } from './config-schema';

/**
 * One lib's config class as a Nest provider: registered with `registerAs(namespace)` and
 * `ConfigModule.forFeature` (so `ConfigService.get('<namespace>.<KEY>')` sees it too), and injectable
 * by its class: `constructor(private readonly config: DocumentsConfig)`. Global, like the rest of the
 * configuration. The whole environment was validated once at boot (every lib's keys, every bad key
 * listed); reading it here again validates the lib alone when a context was built without that list.
 */
@Module({})
export class ConfigFeatureModule {
  private static readonly registered = new Map<ConfigSchema, DynamicModule>();

  /** The same module for the same class, so two modules of one lib may both import it. */
  static register<T extends object>(namespace: string, schema: ConfigSchema<T>): DynamicModule {
    let module = this.registered.get(schema);
    if (!module) {
      const factory = registerAs(namespace, () => readConfig(schema, process.env));
      module = {
        module: ConfigFeatureModule,
        global: true,
        imports: [ConfigModule.forFeature(factory)],
        providers: [{ provide: schema, useExisting: factory.KEY }],
        exports: [schema],
      };
      this.registered.set(schema, module);
    }
    return module;
  }
}
