import { Injectable } from '@nestjs/common';
import type { ToolAssetSpec } from '@app/asset-registry';
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

  register(kind: ToolKind, factory: DynamicToolFactory): void {
    const existing = this.factories.get(kind);
    // A second factory for a kind means the implementing module was instantiated twice.
    if (existing && existing !== factory) throw new Error(`The "${kind}" tool kind is already registered.`);
    this.factories.set(kind, factory);
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
