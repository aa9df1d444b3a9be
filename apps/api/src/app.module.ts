import { DynamicModule, ExecutionContext, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AssetRegistryModule } from '@app/asset-registry';
import { DocumentsModule } from '@app/documents';
import { AssistantModule } from '@app/assistant';
import { PlannerModule } from '@app/planner';
import { OpsModule } from '@app/ops';
import { getOptionsToken, getStorageToken, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { CodeModule } from '@app/code';
import { ApiKeyGuard, PlatformConfig, PlatformModule, PlatformModuleOptions } from '@app/platform';
import { ToolsModule } from '@app/tools';
import { CONFIG_SCHEMAS } from './config-schemas';
import { KeysController } from './admin/keys.controller';
import { SecretsController } from './admin/secrets.controller';
import { SessionController } from './admin/session.controller';
import { TenantsController } from './admin/tenants.controller';
import { HealthController } from './health/health.controller';
import { DatabaseReadRetryInterceptor } from './http/database-read-retry.interceptor';
import { HttpExceptionFilter } from './http/http-exception.filter';
import {
  ApiKeyThrottlerGuard,
  TENANT_THROTTLER,
  tenantTracker,
} from './http/rate-limit/api-key-throttler.guard';
import { RateLimitStorage } from './http/rate-limit/redis-throttler.storage';
import { createValidationPipe } from './http/validation.pipe';

/**
 * RATE_LIMIT_PER_KEY requests per RATE_LIMIT_WINDOW_SECONDS per API key, and RATE_LIMIT_PER_TENANT for
 * all keys of a tenant together (requests without a key count per address only); health probes are exempt.
 */
function rateLimitOptions(config: PlatformConfig): ThrottlerModuleOptions {
  const perKey = config.RATE_LIMIT_PER_KEY;
  const perTenant = config.RATE_LIMIT_PER_TENANT;
  const ttl = config.RATE_LIMIT_WINDOW_SECONDS * 1000;
  const isHealth = (context: ExecutionContext) =>
    context.switchToHttp().getRequest<Request>().path.startsWith('/health');
  return {
    throttlers: [
      { name: 'default', limit: perKey, ttl, skipIf: (context) => perKey === 0 || isHealth(context) },
      {
        name: TENANT_THROTTLER,
        limit: perTenant,
        ttl,
        getTracker: tenantTracker,
        setHeaders: false,
        skipIf: (context) =>
          perTenant === 0 ||
          isHealth(context) ||
          tenantTracker(context.switchToHttp().getRequest<Record<string, unknown>>()) === '',
      },
    ],
  };
}

@Module({})
export class AppModule {
  static forRoot(options: PlatformModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ configSchemas: CONFIG_SCHEMAS, ...options }),
        DocumentsModule,
        AssetRegistryModule,
        ToolsModule,
        OpsModule,
        CodeModule,
        PlannerModule,
        AssistantModule,
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
        // After authentication, so requests are counted per API key.
        RateLimitStorage,
        { provide: getStorageToken(), useExisting: RateLimitStorage },
        { provide: getOptionsToken(), inject: [PlatformConfig], useFactory: rateLimitOptions },
        { provide: APP_GUARD, useClass: ApiKeyThrottlerGuard },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: DatabaseReadRetryInterceptor },
      ],
    };
  }
}
