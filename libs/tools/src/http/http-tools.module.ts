import { Module, OnModuleInit } from '@nestjs/common';
import { AppConfig, EgressPolicy } from '@app/platform';
import { ToolKindRegistry } from '../kinds/tool-kind.registry';
import { ToolKindsModule } from '../kinds/tool-kinds.module';
import { HTTP_TOOL_CONFIG_SCHEMA } from './http-tool-config.schema';
import { HttpToolFactory } from './http-tool.factory';
import { OutboundHttpClient } from '../outbound/outbound-http.client';

/** The `http` tool kind: the egress-checked outbound client and the factory, registered on init. */
@Module({
  imports: [ToolKindsModule],
  providers: [
    {
      provide: OutboundHttpClient,
      useFactory: (config: AppConfig) =>
        new OutboundHttpClient(EgressPolicy.fromAllowlist(config.get('HTTP_TOOL_ALLOWLIST'))),
      inject: [AppConfig],
    },
    HttpToolFactory,
  ],
  exports: [OutboundHttpClient, HttpToolFactory],
})
export class HttpToolsModule implements OnModuleInit {
  constructor(
    private readonly kinds: ToolKindRegistry,
    private readonly factory: HttpToolFactory,
  ) {}

  onModuleInit(): void {
    this.kinds.register('http', this.factory, { configSchema: HTTP_TOOL_CONFIG_SCHEMA });
  }
}
