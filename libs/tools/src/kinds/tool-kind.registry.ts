import { Injectable } from '@nestjs/common';
import type { AssetSchema, ToolAssetSpec } from '@app/asset-registry';
import type { DynamicToolFactory } from './dynamic-tool.factory';

/** The kind of tool a tool asset's spec builds (the asset's `tool_type` in the API). */
export type ToolKind = ToolAssetSpec['kind'];

/**
 * The tool kinds this application can build, each with its factory. The module that implements a
 * kind (http, sql) registers it on init; the dynamic tool loader and the publish-time dry run look
 * the kind up here, so neither has to know which modules are loaded.
 */
@Injectable()
export class ToolKindRegistry {
  private readonly factories = new Map<ToolKind, DynamicToolFactory>();
  private readonly configs = new Map<ToolKind, AssetSchema>();

  /**
   * `configSchema`: the JSON Schema of a tool asset's `tool_config` for this kind; a kind with one can be
   * a tool asset's `tool_type` (a kind built from other assets, `query`, has none).
   */
  register(kind: ToolKind, factory: DynamicToolFactory, options: { configSchema?: AssetSchema } = {}): void {
    const existing = this.factories.get(kind);
    // A second factory for a kind means the implementing module was instantiated twice.
    if (existing && existing !== factory) throw new Error(`The "${kind}" tool kind is already registered.`);
    this.factories.set(kind, factory);
    if (options.configSchema) this.configs.set(kind, options.configSchema);
  }

  /** The config schema of each kind a tool asset may name, for the `tool` asset type's schema. */
  configSchemas(): ReadonlyMap<ToolKind, AssetSchema> {
    return this.configs;
  }

  /** The factory of a kind, or undefined when no loaded module implements it. */
  factoryFor(kind: ToolKind): DynamicToolFactory | undefined {
    return this.factories.get(kind);
  }

  /** The registered kinds, for logs and diagnostics. */
  kinds(): ToolKind[] {
    return [...this.factories.keys()];
  }
}
