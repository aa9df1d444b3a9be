import { Module, OnModuleInit } from '@nestjs/common';
import { ConfigFeatureModule, EgressPolicy } from '@app/platform';
import { ToolKindRegistry } from '../kinds/tool-kind.registry';
import { ToolKindsModule } from '../kinds/tool-kinds.module';
import { HTTP_TOOL_CONFIG_SCHEMA } from './http-tool-config.schema';
import { HttpToolFactory } from './http-tool.factory';
import { OutboundHttpClient } from '../outbound/outbound-http.client';
import { ToolsConfig } from '../tools.config';

/** The `http` tool kind: the egress-checked outbound client and the factory, registered on init. */
@Module({
  imports: [ConfigFeatureModule.register('tools', ToolsConfig), ToolKindsModule],
  providers: [
    {
      provide: OutboundHttpClient,
      useFactory: (config: ToolsConfig) =>
        new OutboundHttpClient(EgressPolicy.fromAllowlist(config.HTTP_TOOL_ALLOWLIST)),
      inject: [ToolsConfig],
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
