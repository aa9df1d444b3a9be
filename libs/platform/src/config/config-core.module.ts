import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AppConfig } from './app-config';
import { validateEnvironment } from './environment';

@Global()
@Module({})
export class ConfigCoreModule {
  /** Reads and validates the environment when called, not when this file is loaded. */
  static forRoot(): DynamicModule {
    return {
      module: ConfigCoreModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          cache: true,
          ignoreEnvFile: process.env.NODE_ENV === 'test',
          validate: validateEnvironment,
        }),
      ],
      providers: [AppConfig],
      exports: [AppConfig],
    };
  }
}
