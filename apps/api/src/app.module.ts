import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { PlannerModule } from '@app/planner';
import { OpsModule } from '@app/ops';
import { ApiKeyGuard, PlatformModule, PlatformModuleOptions } from '@app/platform';
import { ToolsModule } from '@app/tools';
import { KeysController } from './admin/keys.controller';
import { SecretsController } from './admin/secrets.controller';
import { SessionController } from './admin/session.controller';
import { TenantsController } from './admin/tenants.controller';
import { HealthController } from './health/health.controller';
import { DatabaseReadRetryInterceptor } from './http/database-read-retry.interceptor';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { createValidationPipe } from './http/validation.pipe';

@Module({})
export class AppModule {
  static forRoot(options: PlatformModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(options),
        DocumentsModule,
        AssetRegistryModule,
        ToolsModule,
        OpsModule,
        PlannerModule,
      ],
      controllers: [
        HealthController,
        TenantsController,
        KeysController,
        SecretsController,
        SessionController,
      ],
      providers: [
        { provide: APP_GUARD, useExisting: ApiKeyGuard },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: DatabaseReadRetryInterceptor },
      ],
    };
  }
}
