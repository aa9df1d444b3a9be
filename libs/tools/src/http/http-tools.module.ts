import { Global, Module } from '@nestjs/common';
import { ToolAssetDryRunner } from '@app/asset-registry';
import { AppConfig, EgressPolicy } from '@app/platform';
import { HttpToolFactory } from './http-tool.factory';
import { OutboundHttpClient } from './outbound-http.client';
import { ToolAssetDryRunService } from './tool-asset-dry-run.service';

/**
 * Global so the asset registry can inject `ToolAssetDryRunner` (optionally) without importing the
 * tools library, which depends on it.
 */
@Global()
@Module({
  providers: [
    {
      provide: OutboundHttpClient,
      useFactory: (config: AppConfig) =>
        new OutboundHttpClient(EgressPolicy.fromAllowlist(config.get('HTTP_TOOL_ALLOWLIST'))),
      inject: [AppConfig],
    },
    HttpToolFactory,
    ToolAssetDryRunService,
    { provide: ToolAssetDryRunner, useExisting: ToolAssetDryRunService },
  ],
  exports: [OutboundHttpClient, HttpToolFactory, ToolAssetDryRunner],
})
export class HttpToolsModule {}
