import type { PendingAction, ToolContext } from './tool.types';

/**
 * Where the registry parks a side-effect tool call that no human confirmed (implemented by the
 * pending actions store). A port, so the registry stays free of storage and of a circular dependency
 * on the service that later runs the confirmed action through the registry.
 */
export abstract class SideEffectGate {
  abstract hold(context: ToolContext, tool: string, input: Record<string, unknown>): Promise<PendingAction>;
}
