import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { PublishedAssetReader, PublishedContent, ToolAssetSpec } from '@app/asset-registry';
import {
  APP_EVENTS,
  AssetLifecycleEvent,
  runAsSystem,
  runAsTenant,
  type TenantResyncEvent,
} from '@app/platform';
import { ToolRegistry } from '../core/tool-registry';
import { Tool } from '../core/tool.types';
import { ToolKindRegistry } from '../kinds/tool-kind.registry';

/** Asset types that become tools when published: tool assets, and query assets (the query registry). */
const RUNNABLE_ASSET_TYPES = new Set<string>(['tool', 'query']);

/**
 * Keeps each tenant's dynamic tools equal to its published tool and query assets: all of them at start-up,
 * then one at a time as assets are published, rolled back or archived.
 */
@Injectable()
export class DynamicToolLoader implements OnApplicationBootstrap {
  private readonly logger = new Logger(DynamicToolLoader.name);
  /** tenant -> asset id -> tool name, to drop the old name when a republished asset was renamed. */
  private readonly names = new Map<string, Map<string, string>>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly reader: PublishedAssetReader,
    private readonly kinds: ToolKindRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const published = await runAsSystem("tools: load every tenant's published tools at boot", async () => [
      ...(await this.reader.listPublishedToolsAcrossTenants()),
      ...(await this.reader.listPublishedQueryToolsAcrossTenants()),
    ]);
    const byTenant = new Map<string, Tool[]>();
    for (const asset of published) {
      const tool = this.build(asset);
      if (!tool) continue;
      byTenant.set(asset.tenant_id, [...(byTenant.get(asset.tenant_id) ?? []), tool]);
      this.remember(asset.tenant_id, asset.asset_id, asset.name);
    }
    for (const [tenantId, tools] of byTenant) this.registry.replaceDynamicTools(tenantId, tools);
    this.logger.log({ msg: 'dynamic tools loaded', tools: published.length, tenants: byTenant.size });
  }

  @OnEvent(APP_EVENTS.ASSET_PUBLISHED)
  @OnEvent(APP_EVENTS.ASSET_ROLLED_BACK)
  async onPublished(event: AssetLifecycleEvent): Promise<void> {
    if (!RUNNABLE_ASSET_TYPES.has(event.assetType)) return;
    // The cache listener runs alongside this one: for another process's change, a per-process
    // memory cache may still hold the old lookup, so drop it before reading.
    if (event.remote) await this.reader.invalidate(event.tenantId, event.assetType, event.name);
    const asset = await runAsTenant(event.tenantId, () =>
      event.assetType === 'query'
        ? this.reader.getPublishedQueryTool(event.tenantId, event.name)
        : this.reader.getPublishedTool(event.tenantId, event.name),
    );
    const previousName = this.names.get(event.tenantId)?.get(event.assetId);
    if (previousName && previousName !== event.name)
      this.registry.removeDynamicTool(event.tenantId, previousName);
    const tool = asset ? this.build(asset) : undefined;
    if (!tool) {
      this.registry.removeDynamicTool(event.tenantId, event.name);
      return;
    }
    this.registry.setDynamicTool(event.tenantId, tool);
    this.remember(event.tenantId, event.assetId, event.name);
  }

  /**
   * Reloads a tenant's dynamic tools from the database: this process may have missed some of its
   * publishes, rollbacks or archives (see ChangePropagation).
   */
  @OnEvent(APP_EVENTS.TENANT_RESYNC)
  async onTenantResync(event: TenantResyncEvent): Promise<void> {
    if (!event.domains.includes('assets')) return;
    const { tenantId } = event;
    await this.reader.invalidateTenant(tenantId);
    // Both runnable kinds, as at boot: a resync that reloaded tool assets only dropped the query tools.
    const published = await runAsTenant(tenantId, async () => [
      ...(await this.reader.listPublishedTools(tenantId)),
      ...(await this.reader.listPublishedQueryTools(tenantId)),
    ]);
    const tools: Tool[] = [];
    const names = new Map<string, string>();
    for (const asset of published) {
      const tool = this.build(asset);
      if (!tool) continue;
      tools.push(tool);
      names.set(asset.asset_id, asset.name);
    }
    this.registry.replaceDynamicTools(tenantId, tools);
    this.names.set(tenantId, names);
    this.logger.log({ msg: 'dynamic tools reloaded', tenantId, tools: tools.length });
  }

  @OnEvent(APP_EVENTS.ASSET_ARCHIVED)
  onArchived(event: AssetLifecycleEvent): void {
    if (!RUNNABLE_ASSET_TYPES.has(event.assetType)) return;
    this.registry.removeDynamicTool(
      event.tenantId,
      this.names.get(event.tenantId)?.get(event.assetId) ?? event.name,
    );
    this.names.get(event.tenantId)?.delete(event.assetId);
  }

  private build(asset: PublishedContent<ToolAssetSpec>): Tool | undefined {
    const factory = this.kinds.factoryFor(asset.content.tool_type);
    if (!factory) {
      this.logger.warn({
        msg: 'no factory for tool type, tool not loaded',
        tool: asset.name,
        toolType: asset.content.tool_type,
      });
      return undefined;
    }
    try {
      const tool = factory.create(asset.content, { version: asset.version });
      // What the tenant told the planner about the tool travels with its definition (every kind alike).
      if (asset.content.planning_hints) tool.definition.planning_hints = asset.content.planning_hints;
      return tool;
    } catch (error) {
      this.logger.warn({
        msg: 'published tool asset could not be built',
        tool: asset.name,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  private remember(tenantId: string, assetId: string, name: string): void {
    const names = this.names.get(tenantId) ?? new Map<string, string>();
    names.set(assetId, name);
    this.names.set(tenantId, names);
  }
}
