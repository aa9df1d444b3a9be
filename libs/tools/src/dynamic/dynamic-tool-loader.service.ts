import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { PublishedAsset, PublishedAssetReader, PublishedContent, ToolAssetSpec } from '@app/asset-registry';
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
import { STAGE_TOOL_NAME, STAGE_TOOL_KIND, StageAssetTool, stageStepTools } from '../stage/stage-asset.tool';
import { StageExecutorService } from '../stage/stage-executor.service';
import { ToolsConfig } from '../tools.config';

/**
 * Asset types that become tools when published: tool assets, query assets (the query registry) and
 * stage assets (a published stage runs as one tool).
 */
const RUNNABLE_ASSET_TYPES = new Set<string>(['tool', 'query', 'stage']);

/**
 * Keeps each tenant's dynamic tools equal to its published tool, query and stage assets: all of them
 * at start-up, then one at a time as assets are published, rolled back or archived. Stage tools are
 * built after the tools their steps call, whose side effects they inherit.
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
    private readonly stages: StageExecutorService,
    private readonly config: ToolsConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const [published, stageAssets] = await runAsSystem(
      "tools: load every tenant's published tools at boot",
      async () =>
        [
          [
            ...(await this.reader.listPublishedToolsAcrossTenants()),
            ...(await this.reader.listPublishedQueryToolsAcrossTenants()),
          ],
          await this.reader.listPublishedAcrossTenants('stage'),
        ] as const,
    );
    const byTenant = new Map<string, Tool[]>();
    for (const asset of published) {
      const tool = this.build(asset);
      if (!tool) continue;
      byTenant.set(asset.tenant_id, [...(byTenant.get(asset.tenant_id) ?? []), tool]);
      this.remember(asset.tenant_id, asset.asset_id, asset.name);
    }
    for (const [tenantId, tools] of byTenant) this.registry.replaceDynamicTools(tenantId, tools);
    const stagesByTenant = new Map<string, StageAssetTool[]>();
    for (const asset of stageAssets) {
      const tool = this.buildStage(asset.tenant_id, asset);
      if (!tool) continue;
      stagesByTenant.set(asset.tenant_id, [...(stagesByTenant.get(asset.tenant_id) ?? []), tool]);
      this.remember(asset.tenant_id, asset.asset_id, asset.name);
    }
    for (const [tenantId, stageTools] of stagesByTenant)
      this.registry.replaceDynamicTools(tenantId, [...(byTenant.get(tenantId) ?? []), ...stageTools]);
    this.logger.log({
      msg: 'dynamic tools loaded',
      tools: published.length,
      stages: stageAssets.length,
      tenants: new Set([...byTenant.keys(), ...stagesByTenant.keys()]).size,
    });
  }

  @OnEvent(APP_EVENTS.ASSET_PUBLISHED)
  @OnEvent(APP_EVENTS.ASSET_ROLLED_BACK)
  async onPublished(event: AssetLifecycleEvent): Promise<void> {
    if (!RUNNABLE_ASSET_TYPES.has(event.assetType)) return;
    // The cache listener runs alongside this one: for another process's change, a per-process
    // memory cache may still hold the old lookup, so drop it before reading.
    if (event.remote) await this.reader.invalidate(event.tenantId, event.assetType, event.name);
    const tool = await runAsTenant(event.tenantId, async () => {
      if (event.assetType === 'stage') {
        const stage = await this.reader.getPublished(event.tenantId, 'stage', event.name);
        return stage ? this.buildStage(event.tenantId, stage) : undefined;
      }
      const asset =
        event.assetType === 'query'
          ? await this.reader.getPublishedQueryTool(event.tenantId, event.name)
          : await this.reader.getPublishedTool(event.tenantId, event.name);
      return asset ? this.build(asset) : undefined;
    });
    const previousName = this.names.get(event.tenantId)?.get(event.assetId);
    if (previousName && previousName !== event.name)
      this.registry.removeDynamicTool(event.tenantId, previousName);
    if (!tool) {
      const registered = this.registry.definition(event.tenantId, event.name);
      // A stage not offered as a tool leaves the tool of its name (a tool asset's) alone.
      if (event.assetType !== 'stage' || registered?.kind === STAGE_TOOL_KIND)
        this.registry.removeDynamicTool(event.tenantId, event.name);
      return;
    }
    try {
      this.registry.setDynamicTool(event.tenantId, tool);
    } catch (error) {
      // A stage named like a built-in: it still runs through /ops/stage/execute, just not as a tool.
      this.logger.warn({
        msg: 'published asset not loaded as a tool',
        tool: event.name,
        error: (error as Error).message,
      });
      return;
    }
    this.remember(event.tenantId, event.assetId, event.name);
    // The stages calling this tool inherit its side effects.
    if (event.assetType !== 'stage') await this.rebuildStages(event.tenantId);
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
    const [published, stageAssets] = await runAsTenant(
      tenantId,
      async () =>
        [
          [
            ...(await this.reader.listPublishedTools(tenantId)),
            ...(await this.reader.listPublishedQueryTools(tenantId)),
          ],
          await this.reader.listPublished(tenantId, 'stage'),
        ] as const,
    );
    const tools: Tool[] = [];
    const names = new Map<string, string>();
    for (const asset of published) {
      const tool = this.build(asset);
      if (!tool) continue;
      tools.push(tool);
      names.set(asset.asset_id, asset.name);
    }
    this.registry.replaceDynamicTools(tenantId, tools);
    if (stageAssets.length) {
      for (const asset of stageAssets) {
        const tool = this.buildStage(tenantId, asset);
        if (!tool) continue;
        tools.push(tool);
        names.set(asset.asset_id, asset.name);
      }
      this.registry.replaceDynamicTools(tenantId, tools);
    }
    this.names.set(tenantId, names);
    this.logger.log({ msg: 'dynamic tools reloaded', tenantId, tools: tools.length });
  }

  @OnEvent(APP_EVENTS.ASSET_ARCHIVED)
  onArchived(event: AssetLifecycleEvent): void {
    if (!RUNNABLE_ASSET_TYPES.has(event.assetType)) return;
    const name = this.names.get(event.tenantId)?.get(event.assetId) ?? event.name;
    // A stage that was not offered as a tool leaves the tool of its name (a tool asset's) alone.
    const isStage = this.registry.definition(event.tenantId, name)?.kind === STAGE_TOOL_KIND;
    if ((event.assetType === 'stage') === isStage) this.registry.removeDynamicTool(event.tenantId, name);
    this.names.get(event.tenantId)?.delete(event.assetId);
  }

  private async rebuildStages(tenantId: string): Promise<void> {
    const stages = await runAsTenant(tenantId, () => this.reader.listPublished(tenantId, 'stage'));
    for (const asset of stages) {
      const tool = this.buildStage(tenantId, asset);
      const current = this.registry.definition(tenantId, asset.name);
      if (!tool || current?.kind !== STAGE_TOOL_KIND) continue;
      if (current.has_side_effects !== tool.definition.has_side_effects)
        this.registry.setDynamicTool(tenantId, tool);
    }
  }

  private build(asset: PublishedContent<ToolAssetSpec>): Tool | undefined {
    const factory = this.kinds.factoryFor(asset.content.kind);
    if (!factory) {
      this.logger.warn({
        msg: 'no factory for tool kind, tool not loaded',
        tool: asset.name,
        kind: asset.content.kind,
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

  /**
   * A published stage as a tool: it has side effects when any of its steps' tools has (as now
   * registered). A stage whose name is not a valid tool name (dots, colons, over 64 characters) is
   * not offered as a tool; it still runs by name through /ops/stage/execute.
   */
  private buildStage(tenantId: string, asset: PublishedAsset): StageAssetTool | undefined {
    if (!STAGE_TOOL_NAME.test(asset.name)) {
      this.logger.warn({
        msg: 'stage name is not a tool name, not offered as a tool',
        stage: asset.name,
        tenantId,
      });
      return undefined;
    }
    // A tool or query asset of the same name keeps it (a stage step may well call that tool).
    const existing = this.registry.definition(tenantId, asset.name);
    if (existing && existing.kind !== STAGE_TOOL_KIND) {
      this.logger.warn({
        msg: 'stage named like a tool, not offered as a tool',
        stage: asset.name,
        tenantId,
      });
      return undefined;
    }
    const hasSideEffects = stageStepTools(asset.snapshot.content).some(
      (name) => this.registry.definition(tenantId, name)?.has_side_effects === true,
    );
    return new StageAssetTool(asset, hasSideEffects, this.config.STAGE_TIMEOUT_MS, this.stages);
  }

  private remember(tenantId: string, assetId: string, name: string): void {
    const names = this.names.get(tenantId) ?? new Map<string, string>();
    names.set(assetId, name);
    this.names.set(tenantId, names);
  }
}
