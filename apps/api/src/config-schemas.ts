import { AssetRegistryConfig } from '@app/asset-registry/config';
import { AssistantConfig } from '@app/assistant/config';
import { CodeConfig } from '@app/code/config';
import { DocumentsConfig } from '@app/documents/config';
import { PlannerConfig } from '@app/planner/config';
import { ToolsConfig } from '@app/tools/config';
import { OpsConfig } from '@app/ops/config';
import { PlatformConfig, validateConfigs, type ConfigSchema } from '@app/platform/config';

/*
 * Every lib's config class, in the libs' order. The application validates them together at boot (one
 * error lists every bad key of every lib), and docs/configuration.md's table is generated from them
 * (`npm run docs:config`). Light on purpose: main() loads it before the application's modules.
 */
export const CONFIG_SECTIONS: readonly { lib: string; schema: ConfigSchema }[] = [
  { lib: 'platform', schema: PlatformConfig },
  { lib: 'documents', schema: DocumentsConfig },
  { lib: 'asset-registry', schema: AssetRegistryConfig },
  { lib: 'tools', schema: ToolsConfig },
  { lib: 'ops', schema: OpsConfig },
  { lib: 'code', schema: CodeConfig },
  { lib: 'planner', schema: PlannerConfig },
  { lib: 'assistant', schema: AssistantConfig },
];

export const CONFIG_SCHEMAS = CONFIG_SECTIONS.map((section) => section.schema);

/** Validates the raw environment against every lib's config; returns the platform's keys. */
export function validateEnvironment(raw: Record<string, unknown>): PlatformConfig {
  return validateConfigs(CONFIG_SCHEMAS, raw).get(PlatformConfig) as PlatformConfig;
}
