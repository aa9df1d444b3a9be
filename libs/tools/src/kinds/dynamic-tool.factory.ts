import type { ToolAssetSpec } from '@app/asset-registry';
import type { Tool } from '../core/tool.types';

/** Asset metadata a dynamic tool carries in its definition. */
export interface DynamicToolMeta {
  version?: number | null;
  tags?: string[];
}

/**
 * Builds a runnable tool from a tool asset spec of one kind; throws a coded 4xx when the spec
 * is unusable. Each kind's module registers its factory with `ToolKindRegistry`.
 */
export interface DynamicToolFactory {
  create(spec: ToolAssetSpec, meta?: DynamicToolMeta): Tool;
}
