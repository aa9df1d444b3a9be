import type { ToolAssetSpec } from '@app/asset-registry';
import type { Tool } from '../core/tool.types';

/** Asset metadata a dynamic tool carries in its definition. */
export interface DynamicToolMeta {
  version?: number | null;
  tags?: string[];
}

/** Builds a runnable tool from a tool asset spec of one `tool_type`; throws a coded 4xx when the spec is unusable. */
export interface DynamicToolFactory {
  create(spec: ToolAssetSpec, meta?: DynamicToolMeta): Tool;
}

/**
 * DI token of the `sql` tool factory (provided by the OPS data side of the tools library). The dry
 * runner resolves it when present and reports `skipped` for sql specs otherwise.
 */
export const SQL_TOOL_FACTORY = 'SQL_TOOL_FACTORY';
